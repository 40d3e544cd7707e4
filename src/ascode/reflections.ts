// A dataset's reflections as definitions (`--kinds reflection`): the path is the dataset's path, then the
// reflection's name; the reflection is found by that name among its dataset's, never by id. Updates are the
// service's full replace, with the tag read when planning.
import * as catalog from '../api/catalog.js';
import type { ApiClient } from '../api/http.js';
import * as api from '../api/reflections.js';
import { NotFoundError, UsageError } from '../errors.js';
import { formatPath } from '../util/catalog-ref.js';
import { REFLECTION_FIELDS, REFLECTION_SETTINGS } from './admin-fields.js';
import type { Definition } from './definitions.js';
import { diffFields, type EntityReader, type PlanEntry } from './diff.js';
import { type KindHandler, orderKey } from './kind.js';
import { catalogKey } from './order.js';

const LISTS: readonly string[] = api.FIELD_LISTS;

/** A reflection's settings and non-empty field lists, as the file holds them. */
function reflectionFields(r: api.Reflection): Record<string, unknown> {
  const raw = r as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of REFLECTION_FIELDS) {
    const v = raw[f];
    if (v === undefined || v === null || (LISTS.includes(f) && Array.isArray(v) && v.length === 0)) continue;
    out[f] = v;
  }
  return out;
}

/** The reflections of the views and datasets among `defs` (read from the service, so with their ids). */
async function pullReflections(
  client: ApiClient,
  defs: readonly Definition[],
  concurrency: number,
): Promise<Definition[]> {
  const datasets = defs.filter((d) => (d.kind === 'view' || d.kind === 'dataset') && d.id !== undefined);
  const lists = await catalog.mapConcurrent(datasets, concurrency, async (d) =>
    (await api.listReflections(client, d.id!)).flatMap((r): Definition[] =>
      r.name
        ? [{ kind: 'reflection', path: [...d.path, r.name], fields: reflectionFields(r), id: r.id }]
        : [],
    ),
  );
  return lists.flat();
}

/** A dataset's reflections, listed once per plan however many files name one of them. */
type ReflectionLister = (datasetId: string) => Promise<api.Reflection[]>;

function reflectionLister(client: ApiClient): ReflectionLister {
  const lists = new Map<string, Promise<api.Reflection[]>>();
  return (datasetId) => {
    let list = lists.get(datasetId);
    if (!list) {
      list = api.listReflections(client, datasetId);
      list.catch(() => undefined);
      lists.set(datasetId, list);
    }
    return list;
  };
}

/** The reflection a definition names, or undefined when it (or its dataset) does not exist yet. */
async function findReflection(
  read: EntityReader,
  list: ReflectionLister,
  def: Definition,
): Promise<api.Reflection | undefined> {
  let dataset: { id: string; entityType?: string };
  try {
    dataset = await read(def.path.slice(0, -1));
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
  // A source's file or folder not promoted yet: apply promotes it first, then creates the reflection.
  if (dataset.entityType !== 'dataset') return undefined;
  const name = def.path.at(-1);
  const found = (await list(dataset.id)).filter((r) => r.name === name);
  if (found.length > 1) {
    throw new UsageError(
      `${formatPath(def.path.slice(0, -1))} has ${found.length} reflections named "${name}"; a definition cannot tell them apart`,
      { hint: 'rename all but one (dlake reflection update ID --name NEW)' },
    );
  }
  return found[0];
}

/** Settings the file leaves out are not compared (the service keeps them); lists it leaves out are removed. */
async function planReflection(
  read: EntityReader,
  list: ReflectionLister,
  def: Definition,
): Promise<PlanEntry | undefined> {
  const current = await findReflection(read, list, def);
  if (!current) return { action: 'create', def, changes: diffFields({}, def.fields) };
  const have = reflectionFields(current);
  for (const f of REFLECTION_SETTINGS) if (def.fields[f] === undefined) delete have[f];
  const want = Object.fromEntries(
    Object.entries(def.fields).filter(([k, v]) => !(LISTS.includes(k) && Array.isArray(v) && v.length === 0)),
  );
  const changes = diffFields(have, want);
  return changes.length ? { action: 'update', def, changes, state: current } : undefined;
}

async function applyReflection(client: ApiClient, entry: PlanEntry): Promise<void> {
  const { def } = entry;
  const name = def.path.at(-1)!;
  if (entry.action === 'create') {
    const dataset = await catalog.getByPath(client, def.path.slice(0, -1), { exclude: ['children'] });
    await api.createReflection(client, { enabled: true, ...def.fields, name, datasetId: dataset.id });
    return;
  }
  const current = entry.state as api.Reflection;
  const lists = Object.fromEntries(LISTS.map((l) => [l, def.fields[l] ?? []]));
  const body = { ...current, ...def.fields, ...lists, name, id: current.id, tag: current.tag };
  delete body.status;
  await api.updateReflection(client, body);
}

/** A reflection comes after its dataset. */
export const reflectionKind: KindHandler = {
  pull: (run) => pullReflections(run.client, run.catalogDefs, run.concurrency),
  plan: (run, def) => planReflection(run.read, run.shared(reflectionLister), def),
  apply: applyReflection,
  order: (def) => ({ key: orderKey(def), after: [catalogKey(def.path.slice(0, -1))] }),
};
