// Workload queues and the ruleset as definitions (`--kinds queue,rule`). A queue is matched by its name, the
// ruleset is one per service. Rules name their queue by `acceptName`, never by id, so files move between
// environments; ids are filled in when writing. Updates carry the tag read when planning.
import type { ApiClient } from '../api/http.js';
import * as queues from '../api/queues.js';
import type { Queue } from '../api/schemas/admin.js';
import { QUEUE_LIMITS } from './admin-fields.js';
import type { Definition } from './definitions.js';
import { diffFields, type PlanEntry } from './diff.js';
import { type KindHandler, orderKey } from './kind.js';

/** What several plans share: the queues and the ruleset, read once. */
interface WlmReader {
  queues(): Promise<Queue[]>;
  rules(): Promise<queues.Ruleset>;
}

function wlmReader(client: ApiClient): WlmReader {
  let q: Promise<Queue[]> | undefined;
  let r: Promise<queues.Ruleset> | undefined;
  return {
    queues: () => {
      q ??= queues.listQueues(client);
      return q;
    },
    rules: () => {
      r ??= queues.getRules(client);
      return r;
    },
  };
}

/** A queue's limits as the file holds them. */
function queueFields(queue: Queue): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of QUEUE_LIMITS) if (queue[f] !== undefined && queue[f] !== null) out[f] = queue[f];
  return out;
}

type Rule = queues.Ruleset['rules'][number];

/** A rule as the file holds it: no ids (they differ between environments), the queue by its name. */
function ruleFields(rule: Rule, queueList: readonly Queue[]): Record<string, unknown> {
  const { id: _id, acceptId, ...rest } = rule;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) if (v !== undefined && v !== null) out[k] = v;
  if (out.acceptName === undefined && acceptId !== undefined) {
    const name = queueList.find((q) => q.id === acceptId)?.name;
    out.acceptName = name ?? acceptId;
  }
  return out;
}

function rulesetFields(ruleset: queues.Ruleset, queueList: readonly Queue[]): Record<string, unknown> {
  const out: Record<string, unknown> = { rules: ruleset.rules.map((r) => ruleFields(r, queueList)) };
  if (ruleset.defaultRule) out.defaultRule = ruleFields(ruleset.defaultRule, queueList);
  return out;
}

async function pullQueues(reader: WlmReader): Promise<Definition[]> {
  return (await reader.queues()).map((q) => ({
    kind: 'queue',
    path: [q.name],
    fields: queueFields(q),
    id: q.id,
  }));
}

async function pullRules(reader: WlmReader): Promise<Definition> {
  const [ruleset, queueList] = await Promise.all([reader.rules(), reader.queues()]);
  return { kind: 'rule', path: [], fields: rulesetFields(ruleset, queueList) };
}

/**
 * A queue file is the whole queue: a limit it leaves out is removed (the service's PUT replaces the queue);
 * a cpuTier it leaves out is not compared, and the service's default applies.
 */
async function planQueue(reader: WlmReader, def: Definition): Promise<PlanEntry | undefined> {
  const current = (await reader.queues()).find((q) => q.name === def.path[0]);
  if (!current) return { action: 'create', def, changes: diffFields({}, def.fields) };
  const have = queueFields(current);
  if (def.fields.cpuTier === undefined) delete have.cpuTier;
  const changes = diffFields(have, def.fields);
  return changes.length ? { action: 'update', def, changes, state: current } : undefined;
}

/** Lists of objects of one length are compared item by item (`rules.0.conditions`), else as a whole. */
function byIndex(fields: Record<string, unknown>, other: Record<string, unknown>): Record<string, unknown> {
  const a = fields.rules;
  const b = other.rules;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return fields;
  return { ...fields, rules: Object.fromEntries(a.map((r, i) => [String(i), r])) };
}

async function planRules(reader: WlmReader, def: Definition): Promise<PlanEntry | undefined> {
  const [ruleset, queueList] = await Promise.all([reader.rules(), reader.queues()]);
  const have = rulesetFields(ruleset, queueList);
  const changes = diffFields(byIndex(have, def.fields), byIndex(def.fields, have));
  return changes.length ? { action: 'update', def, changes, state: ruleset } : undefined;
}

async function applyQueue(client: ApiClient, entry: PlanEntry): Promise<void> {
  const { def } = entry;
  const name = def.path[0]!;
  if (entry.action === 'create') {
    await queues.createQueue(client, queues.newQueueBody({ name, ...def.fields }));
    return;
  }
  // Everything the service sent (unknown fields too) but the limits, which are the file's; id and tag as read.
  const current = entry.state as Queue;
  const body: Record<string, unknown> = { ...current };
  for (const f of QUEUE_LIMITS) delete body[f];
  if (def.fields.cpuTier === undefined && current.cpuTier !== undefined) body.cpuTier = current.cpuTier;
  await queues.updateQueue(client, {
    ...body,
    ...def.fields,
    id: current.id,
    tag: current.tag,
    name,
  } as Queue);
}

/**
 * The whole ruleset from the file, with the tag read when planning: each rule keeps the id of the rule of
 * the same name, and names its queue by id as well as by name (the queues as they are now, after apply
 * created the new ones).
 */
async function applyRules(client: ApiClient, entry: PlanEntry): Promise<void> {
  const read = entry.state as queues.Ruleset;
  const queueList = await queues.listQueues(client);
  const known = [...read.rules, ...(read.defaultRule ? [read.defaultRule] : [])];
  const withIds = (rule: unknown): Record<string, unknown> => {
    const r = { ...(rule as Record<string, unknown>) };
    const same = known.find((k) => k.name === r.name);
    if (same?.id !== undefined) r.id = same.id;
    const queue =
      typeof r.acceptName === 'string' ? queueList.find((q) => q.name === r.acceptName) : undefined;
    if (queue) r.acceptId = queue.id;
    return r;
  };
  await queues.replaceRules(client, {
    tag: read.tag,
    rules: (entry.def.fields.rules as unknown[]).map(withIds),
    defaultRule: withIds(entry.def.fields.defaultRule),
  });
}

/** The queues a ruleset file places jobs in, by name: apply writes them first. */
function queuesNamed(def: Definition): string[] {
  const rules = [...(Array.isArray(def.fields.rules) ? def.fields.rules : []), def.fields.defaultRule];
  return rules
    .map((r) => (r && typeof r === 'object' ? (r as { acceptName?: unknown }).acceptName : undefined))
    .filter((n): n is string => typeof n === 'string');
}

export const queueKind: KindHandler = {
  pull: (run) => pullQueues(run.shared(wlmReader)),
  plan: (run, def) => planQueue(run.shared(wlmReader), def),
  apply: applyQueue,
  order: (def) => ({ key: orderKey(def), after: [] }),
};

/** The ruleset comes after the queues its rules name. */
export const ruleKind: KindHandler = {
  pull: async (run) => [await pullRules(run.shared(wlmReader))],
  plan: (run, def) => planRules(run.shared(wlmReader), def),
  apply: applyRules,
  order: (def) => ({
    key: orderKey(def),
    after: queuesNamed(def).map((n) => `queue:${JSON.stringify([n])}`),
  }),
};
