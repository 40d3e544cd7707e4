// Workload queues and the single ruleset that places jobs on them. Enterprise only.

import { randomUUID } from 'node:crypto';
import type { AreaContext } from '../area.js';
import { requireAdmin } from '../guards.js';
import { type ApiError, badRequest, conflict, notFound, ok, omitUndefined } from '../http.js';
import { invalidAt, type Json, objectBody, optionalString, stableUuid } from './common.js';

const CPU_TIERS = ['BACKGROUND', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];
const QUEUE_NUMBERS = [
  'maxQueryMemoryPerNodeBytes',
  'maxMemoryPerNodeBytes',
  'maxAllowedRunningJobs',
  'maxStartTimeoutMs',
  'maxRunTimeoutMs',
] as const;
const QUEUE_FIELDS = new Set<string>(['id', 'tag', 'name', 'cpuTier', 'engineId', ...QUEUE_NUMBERS]);

export interface EmuQueue {
  id: string;
  /** A decimal counter as a string: `0` on creation, +1 on each update. */
  tag: string;
  name: string;
  cpuTier: string;
  maxQueryMemoryPerNodeBytes?: number;
  maxMemoryPerNodeBytes?: number;
  maxAllowedRunningJobs?: number;
  maxStartTimeoutMs?: number;
  maxRunTimeoutMs?: number;
  engineId?: string;
}

interface EmuRule {
  id: string;
  name: string;
  conditions?: string;
  action: 'PLACE' | 'REJECT';
  acceptId?: string;
  acceptName?: string;
  rejectMessage?: string;
}

/** Queues and the single ruleset; tests reach them as `emu.queues`. */
export class QueueStore {
  readonly queues = new Map<string, EmuQueue>();
  ruleset: { tag: string; rules: EmuRule[]; defaultRule: EmuRule };

  constructor() {
    const def: EmuQueue = { id: stableUuid('queue-default'), tag: '0', name: 'default', cpuTier: 'MEDIUM' };
    this.queues.set(def.id, def);
    this.ruleset = {
      tag: '0',
      rules: [],
      defaultRule: {
        id: stableUuid('rule-default'),
        name: 'All Other Queries',
        action: 'PLACE',
        acceptId: def.id,
        acceptName: def.name,
      },
    };
  }

  /** Queue names are matched exactly (case-sensitive): the spec only says they are unique. */
  byName(name: string): EmuQueue | undefined {
    for (const q of this.queues.values()) if (q.name === name) return q;
    return undefined;
  }

  referenced(id: string): boolean {
    return [...this.ruleset.rules, this.ruleset.defaultRule].some((r) => r.acceptId === id);
  }
}

/**
 * A queue body without id and tag. Unknown fields are refused as Jackson does by default; cpuTier defaults
 * to MEDIUM (so a PUT without it resets it: PUT is a full replace). The documented quirk that the created
 * queue echoes maxMemoryPerNodeBytes as maxQueryMemoryPerNodeBytes looks like a docs slip and is not copied.
 */
function parseQueue(body: Json): Omit<EmuQueue, 'id' | 'tag'> {
  for (const k of Object.keys(body)) if (!QUEUE_FIELDS.has(k)) throw invalidAt(k);
  const name = optionalString(body, 'name')?.trim();
  if (!name) throw badRequest('Queue name is required.');
  const cpuTier = body.cpuTier ?? 'MEDIUM';
  if (typeof cpuTier !== 'string' || !CPU_TIERS.includes(cpuTier)) throw invalidAt('cpuTier');
  const q: Omit<EmuQueue, 'id' | 'tag'> = { name, cpuTier, engineId: optionalString(body, 'engineId') };
  for (const f of QUEUE_NUMBERS) {
    const v = body[f];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw invalidAt(f);
    q[f] = v;
  }
  return q;
}

const queueJson = (q: EmuQueue): Json => omitUndefined({ ...q });
const queueNotFound = (what: string): ApiError => notFound(`Queue ${what} not found.`);
const nameTaken = (name: string): ApiError => conflict(`Queue with name [${name}] already exists.`);

/** All WLM endpoints are admin-only (403 for other users). */
export function registerQueues(area: AreaContext, store: QueueStore): void {
  const { router } = area;
  const find = (id: string): EmuQueue => {
    const q = store.queues.get(id);
    if (!q) throw queueNotFound(`with id [${id}]`);
    return q;
  };

  router.get('/api/v3/wlm/queue', (req) => {
    requireAdmin(req);
    return ok({ data: [...store.queues.values()].map(queueJson) });
  });
  router.get('/api/v3/wlm/queue/:id', (req) => {
    requireAdmin(req);
    return ok(queueJson(find(req.params.id!)));
  });
  router.get('/api/v3/wlm/queue/by-name/:name', (req) => {
    requireAdmin(req);
    const q = store.byName(req.params.name!);
    if (!q) throw queueNotFound(`[${req.params.name}]`);
    return ok(queueJson(q));
  });
  router.post('/api/v3/wlm/queue', (req) => {
    requireAdmin(req);
    const body = objectBody(req);
    if (body.id !== undefined || body.tag !== undefined)
      throw badRequest('A new queue must not have an id or a tag.');
    const q = { id: randomUUID(), tag: '0', ...parseQueue(body) };
    if (store.byName(q.name)) throw nameTaken(q.name);
    store.queues.set(q.id, q);
    return ok(queueJson(q));
  });
  router.put('/api/v3/wlm/queue/:id', (req) => {
    requireAdmin(req);
    const current = find(req.params.id!);
    const body = objectBody(req);
    if (body.id !== undefined && body.id !== current.id) throw badRequest('Ids must match.');
    if (typeof body.tag !== 'string' || !body.tag) throw badRequest('Queue tag is required.');
    const parsed = parseQueue(body);
    if (body.tag !== current.tag) {
      throw conflict(
        `Queue [${current.name}] has been modified (current tag: ${current.tag}, given: ${body.tag})`,
      );
    }
    const clash = store.byName(parsed.name);
    if (clash && clash.id !== current.id) throw nameTaken(parsed.name);
    const next: EmuQueue = { id: current.id, tag: String(Number(current.tag) + 1), ...parsed };
    store.queues.set(next.id, next);
    // Rules show the queue's name beside its id; keep it current after a rename.
    for (const r of [...store.ruleset.rules, store.ruleset.defaultRule]) {
      if (r.acceptId === next.id) r.acceptName = next.name;
    }
    return ok(queueJson(next));
  });
  // Documented as 200 with no body (not 204).
  router.delete('/api/v3/wlm/queue/:id', (req) => {
    requireAdmin(req);
    const q = find(req.params.id!);
    if (store.referenced(q.id)) throw badRequest(`Queue [${q.name}] still has rules referencing it.`);
    store.queues.delete(q.id);
    return { status: 200 };
  });
}

/** The ruleset (docs/api-facts.md §9.2): one object, replaced as a whole by PUT with the current tag. */
export function registerRules(area: AreaContext, store: QueueStore): void {
  const { router } = area;
  const rulesJson = (): Json => ({
    tag: store.ruleset.tag,
    rules: store.ruleset.rules.map((r) => omitUndefined({ ...r })),
    defaultRule: omitUndefined({ ...store.ruleset.defaultRule }),
  });

  router.get('/api/v3/wlm/rule', (req) => {
    requireAdmin(req);
    return ok(rulesJson());
  });
  // A ruleset exists from the start, so the tag is always required; missing or stale is the same 409.
  router.put('/api/v3/wlm/rule', (req) => {
    requireAdmin(req);
    const body = objectBody(req);
    const current = store.ruleset;
    if (body.tag !== current.tag) {
      throw conflict(
        `Rules have been modified (current tag: ${current.tag}, given: ${String(body.tag ?? null)})`,
      );
    }
    if (!Array.isArray(body.rules)) throw invalidAt('rules');
    const rules = body.rules.map((r, i) => parseRule(r, `rules[${i}]`, store, true));
    const names = new Set<string>();
    for (const r of rules) {
      if (names.has(r.name)) throw badRequest(`Duplicate rule name [${r.name}].`);
      names.add(r.name);
    }
    const defaultRule = parseRule(body.defaultRule, 'defaultRule', store, false);
    store.ruleset = { tag: String(Number(current.tag) + 1), rules, defaultRule };
    return ok(rulesJson());
  });
}

/** One rule: PLACE names an existing queue (by id or name; both are filled in), REJECT may carry a message. */
function parseRule(raw: unknown, at: string, store: QueueStore, needsConditions: boolean): EmuRule {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw invalidAt(at);
  const r = raw as Json;
  const name = optionalString(r, 'name')?.trim();
  if (!name) throw invalidAt(`${at}.name`);
  const action = r.action;
  if (action !== 'PLACE' && action !== 'REJECT') throw invalidAt(`${at}.action`);
  const conditions = optionalString(r, 'conditions');
  if (needsConditions && !conditions?.trim()) throw invalidAt(`${at}.conditions`);
  const id = optionalString(r, 'id') || randomUUID();
  const rule: EmuRule = { id, name, conditions: needsConditions ? conditions : undefined, action };
  if (action === 'REJECT') {
    rule.rejectMessage = optionalString(r, 'rejectMessage');
    return rule;
  }
  const acceptId = optionalString(r, 'acceptId');
  const acceptName = optionalString(r, 'acceptName');
  const q = acceptId ? store.queues.get(acceptId) : acceptName ? store.byName(acceptName) : undefined;
  if (!q) throw badRequest(`Queue [${acceptId ?? acceptName ?? ''}] not found.`);
  rule.acceptId = q.id;
  rule.acceptName = q.name;
  return rule;
}
