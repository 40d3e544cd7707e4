// Workload-management queues and their ruleset (docs/api-facts.md §9):
// Enterprise only, admin only. A queue PUT is a full replace, so updates merge into the queue just read
// (mergeQueue, pure) and send it back with its tag.

import * as z from 'zod/mini';
import '../util/zod.js';
import { ConflictError, UsageError } from '../errors.js';
import { isUuid } from '../util/catalog-ref.js';
import { explainStaleTag, nameTaken } from './conflicts.js';
import { adminOnly, enterprise } from './editions.js';
import { type Target, v3 } from './endpoint.js';
import type { ApiClient, RequestSpec } from './http.js';
import { type Queue, QueueListSchema, QueueSchema } from './schemas/admin.js';
import { optional, text } from './schemas.js';
import { segment } from './url-segment.js';

const QUEUES = v3('queue', 'wlm/queue', { gap: 'queues' });
const RULES = v3('queue-rules', 'wlm/rule', { gap: 'queue-rules' });

/** The writable fields of a queue, in the API's units (bytes, milliseconds). */
export interface QueueFields {
  name?: string;
  cpuTier?: string;
  maxMemoryPerNodeBytes?: number;
  maxQueryMemoryPerNodeBytes?: number;
  maxAllowedRunningJobs?: number;
  maxStartTimeoutMs?: number;
  maxRunTimeoutMs?: number;
}

type NewQueueBody = QueueFields & { name: string };
/** The queue as read, with the given fields changed: every field is sent, since PUT replaces the queue. */
type QueueUpdateBody = Queue;

const RuleSchema = z.looseObject({
  id: optional(text),
  name: z.string(),
  action: optional(z.string()),
  acceptId: optional(text),
  acceptName: optional(z.string()),
});
export const RulesetSchema = z.looseObject({
  tag: optional(text),
  rules: z.pipe(
    optional(z.array(RuleSchema)),
    z.transform((r) => r ?? []),
  ),
  defaultRule: optional(RuleSchema),
});
export type Ruleset = z.infer<typeof RulesetSchema>;

function queueTarget(id: string): Target {
  return v3('queue', `wlm/queue/${segment(id, 'queue id')}`, { key: { id }, gap: 'queues' });
}

/** Every queue request: the community edition has none, and they are admin-only. */
async function queueCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await enterprise('workload queues', call);
  } catch (err) {
    throw adminOnly(err, 'managing workload queues');
  }
}

export async function listQueues(client: ApiClient): Promise<Queue[]> {
  const res = await queueCall(() => client.request({ method: 'GET', at: QUEUES, schema: QueueListSchema }));
  return res.data;
}

function getQueue(client: ApiClient, id: string): Promise<Queue> {
  return queueCall(() => client.request({ method: 'GET', at: queueTarget(id), schema: QueueSchema }));
}

/** Names are matched as the service does (exactly, on the emulator). */
function getQueueByName(client: ApiClient, name: string): Promise<Queue> {
  return queueCall(() =>
    client.request({
      method: 'GET',
      at: v3('queue', `wlm/queue/by-name/${segment(name, 'queue name')}`, { key: { name }, gap: 'queues' }),
      schema: QueueSchema,
    }),
  );
}

/** A queue by id (a UUID) or by name. */
export function resolveQueue(client: ApiClient, idOrName: string): Promise<Queue> {
  return isUuid(idOrName) ? getQueue(client, idOrName) : getQueueByName(client, idOrName);
}

export function createQueueRequest(body: NewQueueBody) {
  return { method: 'POST', at: QUEUES, json: body } as const;
}

/** POST: answers the queue with its id and tag `0`; never repeated automatically. */
export async function createQueue(client: ApiClient, body: NewQueueBody): Promise<Queue> {
  return queueCall(() => client.request({ ...createQueueRequest(body), schema: QueueSchema })).catch(
    (err: unknown) => {
      throw nameTaken(err, `a queue named "${body.name}" already exists`);
    },
  );
}

export function updateQueueRequest(body: QueueUpdateBody) {
  return { method: 'PUT', at: queueTarget(body.id), json: body } as const;
}

/**
 * PUT with the tag read before. A 409 is either a stale tag (the queue was changed meanwhile: the hint
 * names its current tag, read again) or a new name that another queue has.
 */
export async function updateQueue(client: ApiClient, body: QueueUpdateBody): Promise<Queue> {
  const spec: RequestSpec<typeof QueueSchema> = {
    ...updateQueueRequest(body),
    schema: QueueSchema,
    idempotent: true,
  };
  try {
    return await queueCall(() => client.request(spec));
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    const stale = await explainStaleTag(
      err,
      body.tag,
      () => getQueue(client, body.id),
      (current) => ({
        message: `queue "${current.name}" was changed by someone else since it was read (tag "${body.tag}")`,
        hint: { kind: 'stale-queue-tag', id: current.id, currentTag: current.tag },
      }),
    );
    if (stale !== err) throw stale;
    throw nameTaken(err, `a queue named "${body.name}" already exists`);
  }
}

export function deleteQueueRequest(id: string) {
  return { method: 'DELETE', at: queueTarget(id) } as const;
}

/**
 * DELETE (200, no body). It carries no tag, so it is not repeated automatically. A queue that rules still
 * place jobs in cannot be deleted (400): the hint names those rules.
 */
export async function deleteQueue(client: ApiClient, queue: Pick<Queue, 'id' | 'name'>): Promise<void> {
  try {
    // `text`, not `none`: the client drops the body with `none`, error bodies too, and their text is needed.
    await queueCall(() => client.request({ ...deleteQueueRequest(queue.id), responseType: 'text' }));
  } catch (err) {
    if (!(err instanceof UsageError) || !/rule/i.test(err.message)) throw err;
    const rules = await getRules(client).catch(() => undefined);
    const names = rules ? rulesPlacingIn(rules, queue.id) : [];
    throw new UsageError(`queue "${queue.name}" cannot be deleted: rules still place jobs in it`, {
      moreInfo: err.message,
      hint: { kind: 'rules-place-in-queue', rules: names },
    });
  }
}

/** GET /wlm/rule: the one ruleset, in priority order, plus the default rule. */
export function getRules(client: ApiClient): Promise<Ruleset> {
  return queueCall(() => client.request({ method: 'GET', at: RULES, schema: RulesetSchema }));
}

export function rulesPlacingIn(ruleset: Ruleset, queueId: string): string[] {
  return [...ruleset.rules, ...(ruleset.defaultRule ? [ruleset.defaultRule] : [])]
    .filter((r) => r.acceptId === queueId)
    .map((r) => r.name);
}

// ── The pure part: what to send ─────────────────────────────────────────────────────────────────────

/** The writable fields of a queue: its name, then its limits. */
export const QUEUE_FIELDS = [
  'name',
  'cpuTier',
  'maxMemoryPerNodeBytes',
  'maxQueryMemoryPerNodeBytes',
  'maxAllowedRunningJobs',
  'maxStartTimeoutMs',
  'maxRunTimeoutMs',
] as const satisfies readonly (keyof QueueFields)[];

/** Only the fields that were given. */
function given(fields: QueueFields): QueueFields {
  const out: Record<string, unknown> = {};
  for (const f of QUEUE_FIELDS) if (fields[f] !== undefined) out[f] = fields[f];
  return out as QueueFields;
}

export function newQueueBody(fields: QueueFields): NewQueueBody {
  if (!fields.name?.trim()) throw new UsageError('a queue needs a name');
  return { ...given(fields), name: fields.name };
}

interface MergedQueue {
  body: QueueUpdateBody;
  /** Names of the fields whose value changes. */
  changed: string[];
}

/**
 * The full replacement for `current`: every field it has (unknown ones too: the service sent them and a
 * full replace would drop what is left out), the given fields changed, its id and tag unchanged.
 */
export function mergeQueue(current: Queue, fields: QueueFields): MergedQueue {
  const changes = given(fields);
  const changed = Object.entries(changes)
    .filter(([k, v]) => current[k as keyof Queue] !== v)
    .map(([k]) => k);
  return { body: { ...current, ...changes, id: current.id, tag: current.tag }, changed };
}

/** PUT /wlm/rule's body: the whole ruleset (order = priority), with the tag it replaces. */
export interface RulesetBody {
  tag?: string;
  rules: unknown[];
  defaultRule: unknown;
}

export function replaceRulesRequest(body: RulesetBody) {
  return { method: 'PUT', at: RULES, json: body } as const;
}

/**
 * PUT /wlm/rule: replaces every rule at once. A stale tag is a conflict (exit 5) whose hint gives the
 * current tag; the rules in the file are not merged with someone else's newer ones.
 */
export async function replaceRules(client: ApiClient, body: RulesetBody): Promise<Ruleset> {
  try {
    return await queueCall(() =>
      client.request({
        ...replaceRulesRequest(body),
        schema: RulesetSchema,
        idempotent: body.tag !== undefined,
      }),
    );
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    const current = await getRules(client).catch(() => undefined);
    if (!current?.tag || current.tag === body.tag) throw err;
    throw new ConflictError(`the ruleset was changed since tag "${body.tag ?? ''}" was read`, {
      moreInfo: err.message,
      hint: { kind: 'stale-ruleset-tag', currentTag: current.tag },
    });
  }
}
