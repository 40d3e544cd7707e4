// What a kind of definition beside the catalog's (queue, rule, reflection, grant, user, role) must say: how it
// is pulled, planned, applied and ordered. Each kind's module exports its KindHandler; admin-kinds.ts is the
// table of them, so a new kind is its own module and one line there.
import type { ApiClient } from '../api/http.js';
import type { Definition } from './definitions.js';
import type { EntityReader, PlanEntry } from './diff.js';

/** What a pull or a plan gives every kind, once per run. */
interface KindRun {
  client: ApiClient;
  /**
   * `make(client)`, made once per run and shared by every definition of every kind that asks for it (the
   * queues and the ruleset are read once for a whole plan).
   */
  shared<T>(make: (client: ApiClient) => T): T;
}

interface PullRun extends KindRun {
  /** The catalog definitions just pulled (a dataset's reflections, an entity's grants). */
  catalogDefs: readonly Definition[];
  /** Reads at once. */
  concurrency: number;
}

interface PlanRun extends KindRun {
  /** The catalog plan's reader: a plan reads no entity twice. */
  read: EntityReader;
}

export interface KindHandler {
  /** Every definition of this kind the service has. */
  pull(run: PullRun): Promise<Definition[]>;
  /** The change that would make the service match `def`; undefined when it does. */
  plan(run: PlanRun, def: Definition): Promise<PlanEntry | undefined>;
  /** Carries out an entry of the plan. */
  apply(client: ApiClient, entry: PlanEntry): Promise<void>;
  /** Its key in the order of apply, and the keys it must come after (its dataset, its entity, its grantees). */
  order(def: Definition): { key: string; after: string[] };
}

/** `kind:["path"]`: a definition's own key in the order of apply. */
export const orderKey = (def: Definition): string => `${def.kind}:${JSON.stringify(def.path)}`;

/** A run's `shared`: each maker's value made on first use. */
export function sharedPerRun(client: ApiClient): KindRun['shared'] {
  const made = new Map<unknown, unknown>();
  return <T>(make: (client: ApiClient) => T): T => {
    if (!made.has(make)) made.set(make, make(client));
    return made.get(make) as T;
  };
}
