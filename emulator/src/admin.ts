// Administration area: users, roles (minimal), personal access tokens, workload queues and rules, and the
// reflection summary. Everything but reading and writing users is Enterprise-only: the community edition
// does not have those resources at all (api-extra scope note), so they are not registered there and the
// server's generic `HTTP 404 Not Found` answers, as Jersey would for a path it does not know.
import { createHash, randomUUID } from 'node:crypto';
import { omitUndefined, requireAdmin, requireAuth } from './auth.js';
import {
  ApiError,
  badRequest,
  conflict,
  type EmuRequest,
  type EmuResponse,
  forbidden,
  jsonBody,
  noContent,
  notFound,
  ok,
  type Principal,
} from './http.js';
import type { AreaContext } from './server.js';
import { type EmuState, type EmuUser, type IssuedToken, newTag } from './state.js';

type Json = Record<string, unknown>;

export function registerAdmin(area: AreaContext): void {
  const enterprise = area.options.edition !== 'community';
  const roles = new RoleStore(area.state);
  registerUsers(area, roles, enterprise);
  if (!enterprise) return;
  registerRoles(area, roles);
  registerPats(area);
  const queues = new QueueStore();
  area.shared.queues = queues;
  registerQueues(area, queues);
  registerRules(area, queues);
  registerReflectionSummary(area);
}

// ── Small helpers ───────────────────────────────────────────────────────────────────────────────────

/** A JSON object body; anything else (an empty body, an array, a number) is Jackson's `Invalid value.`. */
function objectBody(req: EmuRequest): Json {
  if (!req.body.trim()) throw badRequest('Invalid value.');
  const body = jsonBody<unknown>(req);
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('Invalid value.');
  return body as Json;
}

/** Jackson's mapping error for a field of the wrong type. */
const invalidAt = (field: string): ApiError => badRequest(`Invalid value found at: ${field}`);

function optionalString(body: Json, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalidAt(field);
  return v;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** A UUID-shaped id derived from a seed, so seeded data is the same in every run. */
function stableUuid(seed: string): string {
  const h = createHash('sha1').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The `filter` expressions of `GET /user` and `GET /role` (api-extra §7.2, §8): `field=='v'`,
 * `startsWith(field,'v')`, `contains(field,'v')`, joined by `&&` and `||` (no parentheses; `&&` binds
 * tighter). Anything else is a 400.
 */
function compileFilter(expr: string | null, fields: readonly string[]): (o: Json) => boolean {
  if (!expr?.trim()) return () => true;
  const term = (t: string): ((o: Json) => boolean) => {
    const eq = /^\s*(\w+)\s*==\s*(['"])(.*)\2\s*$/.exec(t);
    const fn = /^\s*(startsWith|contains)\s*\(\s*(\w+)\s*,\s*(['"])(.*)\3\s*\)\s*$/.exec(t);
    const field = eq?.[1] ?? fn?.[2];
    if (!field || !fields.includes(field)) throw badRequest(`Invalid filter expression: ${expr}`);
    const value = eq ? eq[3]! : fn![4]!;
    return (o) => {
      const v = o[field];
      if (typeof v !== 'string') return false;
      if (eq) return v === value;
      return fn![1] === 'startsWith' ? v.startsWith(value) : v.includes(value);
    };
  };
  const ors = expr.split('||').map((or) => or.split('&&').map(term));
  return (o) => ors.some((ands) => ands.every((t) => t(o)));
}

// ── Roles ───────────────────────────────────────────────────────────────────────────────────────────

/** Fixed ids of the predefined roles, so tests and scripts can rely on them. */
export const PUBLIC_ROLE_ID = '00000000-0000-4000-8000-000000000001';
export const ADMIN_ROLE_ID = '00000000-0000-4000-8000-000000000002';

interface EmuRole {
  id: string;
  name: string;
  type: 'SYSTEM' | 'INTERNAL' | 'EXTERNAL';
  description?: string;
}

/** Roles by id. Users keep role names (`EmuUser.roles`, without PUBLIC), role names being immutable. */
class RoleStore {
  readonly roles = new Map<string, EmuRole>();

  constructor(private readonly state: EmuState) {
    this.add({ id: PUBLIC_ROLE_ID, name: 'PUBLIC', type: 'SYSTEM' });
    this.add({ id: ADMIN_ROLE_ID, name: 'ADMIN', type: 'SYSTEM' });
    this.add({
      id: stableUuid('role-analysts'),
      name: 'analysts',
      type: 'INTERNAL',
      description: 'Analysts',
    });
  }

  add(role: EmuRole): EmuRole {
    this.roles.set(role.id, role);
    return role;
  }

  byName(name: string): EmuRole | undefined {
    const lower = name.toLowerCase();
    for (const r of this.roles.values()) if (r.name.toLowerCase() === lower) return r;
    return undefined;
  }

  /** A user's role references: PUBLIC first, then the others in the order they were given. */
  refsOf(user: EmuUser): Json[] {
    const names = ['PUBLIC', ...user.roles.filter((n) => n !== 'PUBLIC')];
    return names.flatMap((n) => {
      const r = this.byName(n);
      return r ? [{ id: r.id, name: r.name, type: r.type }] : [];
    });
  }

  /** Role names from request references (by id, else by name); PUBLIC is implied and left out. */
  resolve(refs: unknown): string[] {
    if (refs === undefined || refs === null) return [];
    if (!Array.isArray(refs)) throw invalidAt('roles');
    const names = refs.map((ref, i) => {
      if (!ref || typeof ref !== 'object') throw invalidAt(`roles[${i}]`);
      const { id, name } = ref as Json;
      const role =
        typeof id === 'string' && id
          ? this.roles.get(id)
          : typeof name === 'string'
            ? this.byName(name)
            : undefined;
      if (!role) {
        // Unknown roles are a client error (400) in the emulator; the real text is unconfirmed.
        throw badRequest(
          typeof id === 'string' && id
            ? `Role with id '${id}' not found`
            : `Role '${String(name)}' not found`,
        );
      }
      return role.name;
    });
    return [...new Set(names)].filter((n) => n !== 'PUBLIC');
  }

  json(role: EmuRole): Json {
    const memberCount =
      role.name === 'PUBLIC'
        ? this.state.users.size
        : [...this.state.users.values()].filter((u) => u.roles.includes(role.name)).length;
    return omitUndefined({
      id: role.id,
      name: role.name,
      type: role.type,
      roles: [],
      memberCount,
      description: role.description,
    });
  }
}

function registerRoles(area: AreaContext, store: RoleStore): void {
  const { router, state } = area;
  const roleNotFound = (what: string): ApiError => notFound(`Role ${what} not found`);

  // Reading roles needs only a login (the CLI resolves role names when it edits users).
  router.get('/api/v3/role', (req) => {
    requireAuth(req);
    const match = compileFilter(req.query.get('filter'), ['id', 'name', 'type']);
    const data = [...store.roles.values()].map((r) => store.json(r)).filter(match);
    return ok({ data, totalResults: data.length });
  });
  router.get('/api/v3/role/by-name/:name', (req) => {
    requireAuth(req);
    const role = store.byName(req.params.name!);
    if (!role) throw roleNotFound(`'${req.params.name}'`);
    return ok(store.json(role));
  });
  router.get('/api/v3/role/:id', (req) => {
    requireAuth(req);
    const role = store.roles.get(req.params.id!);
    if (!role) throw roleNotFound(`with id '${req.params.id}'`);
    return ok(store.json(role));
  });
  // Docs list 400 (not 409) among the create codes, so a duplicate name is a 400 here.
  router.post('/api/v3/role', (req) => {
    requireAdmin(req);
    const body = objectBody(req);
    const name = optionalString(body, 'name')?.trim();
    if (!name) throw badRequest('Role name is required.');
    if (store.byName(name)) throw badRequest(`Role '${name}' already exists`);
    const description = optionalString(body, 'description');
    return ok(store.json(store.add({ id: randomUUID(), name, type: 'INTERNAL', description })));
  });
  // System roles cannot be deleted and answer 404 (api-extra §8); members lose the role.
  router.delete('/api/v3/role/:id', (req) => {
    requireAdmin(req);
    const role = store.roles.get(req.params.id!);
    if (!role || role.type === 'SYSTEM') throw roleNotFound(`with id '${req.params.id}'`);
    store.roles.delete(role.id);
    for (const u of state.users.values()) u.roles = u.roles.filter((n) => n !== role.name);
    return noContent();
  });
}

// ── Users ───────────────────────────────────────────────────────────────────────────────────────────

const PASSWORD_RE = /^(?=.*\d)(?=.*[A-Za-z]).{8,}$/;
const USER_FIELDS = ['id', 'name', 'firstName', 'lastName', 'email', 'identityType'] as const;

const userNotFound = (id: string): ApiError => notFound(`User with given id '${id}' not found`);

function registerUsers(area: AreaContext, roles: RoleStore, enterprise: boolean): void {
  const { router, state } = area;
  const json = (u: EmuUser): Json => userJson(u, roles, enterprise);
  const find = (id: string): EmuUser => {
    const u = state.users.get(id);
    if (!u) throw userNotFound(id);
    return u;
  };

  router.get('/api/v3/user/:id', (req) => {
    requireAuth(req);
    return ok(json(find(req.params.id!)));
  });
  // By name: case-insensitive, abbreviated; its 404 carries `stackTrace: []` (one-argument error message).
  router.get('/api/v3/user/by-name/:name', (req) => {
    requireAuth(req);
    const u = state.userByName(req.params.name!);
    if (!u) throw new ApiError(404, `User '${req.params.name}' not found`, { moreInfo: '', stackTrace: [] });
    const { id, name, firstName, lastName, email, tag, active } = u;
    return ok(omitUndefined({ id, name, firstName, lastName, email, tag, active }));
  });
  router.post('/api/v3/user', (req) => {
    requireAdmin(req);
    return ok(json(createUser(objectBody(req), state, roles, enterprise)));
  });
  router.put('/api/v3/user/:id', (req) => {
    requireAdmin(req);
    const user = find(req.params.id!);
    updateUser(user, objectBody(req), roles, enterprise);
    return ok(json(user));
  });
  // The community edition has GET and PUT on /user/{id} but no DELETE: the router answers 405 there, as the
  // real OSS server does; it has no user listing either (GET /user is a 405 beside POST).
  if (!enterprise) return;

  router.get('/api/v3/user', (req) => {
    requireAuth(req);
    const match = compileFilter(req.query.get('filter'), USER_FIELDS);
    const data = [...state.users.values()].filter((u) => match(u as unknown as Json)).map(json);
    return ok({ data, totalResults: data.length });
  });
  router.delete('/api/v3/user/:id', (req) => deleteUser(req, state));
}

/**
 * Enterprise users carry roles, source and identity type; community users (the OSS `User`) only the basic
 * fields. The spec's `@type` enum has `User` for the community edition, so it is sent there too.
 */
function userJson(u: EmuUser, roles: RoleStore, enterprise: boolean): Json {
  const base = {
    id: u.id,
    name: u.name,
    firstName: u.firstName,
    lastName: u.lastName,
    email: u.email,
    tag: u.tag,
  };
  if (!enterprise) return omitUndefined({ '@type': 'User', ...base, active: u.active });
  return omitUndefined({
    '@type': 'EnterpriseUser',
    ...base,
    roles: roles.refsOf(u),
    source: u.source,
    active: u.active,
    identityType: u.identityType,
    oauthClientId: u.clientId,
  });
}

function checkPassword(password: string | undefined, required: boolean): void {
  if (password === undefined && !required) return;
  if (!password || !PASSWORD_RE.test(password)) {
    throw badRequest(
      'Invalid password: must be at least 8 letters long, must contain at least one number and one letter',
    );
  }
}

/**
 * Creation. A duplicate name is 409 in Enterprise (the brief's choice; unconfirmed) and 400 in community
 * (OSS throws an IllegalArgumentException). OSS requires a password; Enterprise users may be created
 * without one (they then cannot use the legacy login), service users must not have one.
 */
function createUser(body: Json, state: EmuState, roles: RoleStore, enterprise: boolean): EmuUser {
  const name = optionalString(body, 'name')?.trim();
  if (!name) throw badRequest('User name is required.');
  if (/["':]/.test(name)) throw badRequest('Invalid username: can not contain quotes or colons.');
  if (state.userByName(name)) {
    const msg = `User '${name}' already exists`;
    throw enterprise ? conflict(msg) : badRequest(msg);
  }
  const identityType = enterprise ? (optionalString(body, 'identityType') ?? 'REGULAR_USER') : 'REGULAR_USER';
  if (identityType !== 'REGULAR_USER' && identityType !== 'SERVICE_USER') throw invalidAt('identityType');
  const service = identityType === 'SERVICE_USER';
  const password = optionalString(body, 'password');
  if (service && password !== undefined) throw badRequest('A service user cannot have a password.');
  checkPassword(password, !enterprise);
  const roleNames = enterprise ? roles.resolve(body.roles) : [];
  const user = state.addUser({
    name,
    password,
    firstName: optionalString(body, 'firstName'),
    lastName: optionalString(body, 'lastName'),
    email: optionalString(body, 'email'),
    admin: roleNames.includes('ADMIN'),
    // A new service user gets an OAuth client id (no secret: credentials are made elsewhere) so that the
    // JWT-for-a-service-user exchange can name it in its audience.
    clientId: service ? randomUUID() : undefined,
  });
  user.roles = roleNames;
  return user;
}

/**
 * Update. `id`, `tag` and `name` are required; the name cannot change (415, OSS quirk); a stale tag is a 409
 * with the KV store's text. Omitted name fields keep their values (OSS), omitted roles are removed
 * (Enterprise docs) but PUBLIC always stays; ADMIN membership is what makes a user an admin.
 */
function updateUser(user: EmuUser, body: Json, roles: RoleStore, enterprise: boolean): void {
  for (const f of ['id', 'tag', 'name']) {
    if (typeof body[f] !== 'string' || !body[f]) throw badRequest(`Missing required field: ${f}`);
  }
  if (body.id !== user.id) throw badRequest('Ids must match.');
  if (body.name !== user.name) throw new ApiError(415, 'Changing of user name is not supported');
  if (body.tag !== user.tag) throw conflict(`Tried to update version ${body.tag}, found tag ${user.tag}`);
  const password = optionalString(body, 'password');
  if (password !== undefined && user.identityType === 'SERVICE_USER') {
    throw badRequest('A service user cannot have a password.');
  }
  checkPassword(password, false);
  const names = enterprise ? roles.resolve(body.roles) : undefined;
  for (const f of ['firstName', 'lastName', 'email'] as const) {
    if (f in body) user[f] = optionalString(body, f);
  }
  if (password !== undefined) user.password = password;
  if (names) {
    user.roles = names;
    user.admin = names.includes('ADMIN');
  }
  user.tag = newTag();
}

/**
 * Enterprise delete (api-extra §7.2, texts of the v2 endpoint §7.3): the version is required except for
 * service users; deleting yourself or anyone with a live session is a 403; a stale version a 409; then 204.
 */
function deleteUser(req: EmuRequest, state: EmuState): EmuResponse {
  const caller = requireAdmin(req);
  const id = req.params.id!;
  const user = state.users.get(id);
  const version = req.query.get('version');
  if (!version && user?.identityType !== 'SERVICE_USER') throw badRequest('Missing Version Parameter');
  if (!user) throw userNotFound(id);
  const loggedIn = [...state.tokens.values()].some(
    (t) => t.userId === id && t.kind === 'session' && t.expiresAt > state.now(),
  );
  if (caller.userId === id || loggedIn) {
    throw forbidden('Deletion of the user account of currently logged in user is not allowed.');
  }
  if (version && version !== user.tag) {
    throw conflict(
      `Cannot delete user "${user.name}", version provided "${version}" is different from version found "${user.tag}"`,
    );
  }
  state.users.delete(id);
  for (const [token, t] of state.tokens) if (t.userId === id) state.tokens.delete(token);
  return noContent();
}

// ── Personal access tokens ──────────────────────────────────────────────────────────────────────────

const MAX_PAT_LIFETIME_MS = 180 * 24 * 60 * 60 * 1000;

function registerPats(area: AreaContext): void {
  const { router, state, options } = area;
  /** Any PAT call needs a login and the feature switched on. The real "disabled" text is unconfirmed. */
  const guard = (req: EmuRequest): Principal => {
    const p = requireAuth(req);
    if (options.patsEnabled === false) throw forbidden('Personal access tokens are disabled.');
    return p;
  };
  /** Users manage their own tokens, admins anyone's; 403 comes before 404 so ids do not leak. */
  const ownerOrAdmin = (req: EmuRequest): EmuUser => {
    const p = guard(req);
    const id = req.params.id!;
    if (!p.admin && p.userId !== id) throw forbidden();
    const user = state.users.get(id);
    if (!user) throw userNotFound(id);
    return user;
  };
  const patsOf = (uid: string): IssuedToken[] =>
    [...state.tokens.values()]
      .filter((t) => t.kind === 'pat' && t.userId === uid && t.expiresAt > state.now())
      .sort((a, b) => a.createdAt - b.createdAt);

  // Expired PATs are left out of the listing (the service's cleanup is not modelled).
  router.get('/api/v3/user/:id/token', (req) => {
    const user = ownerOrAdmin(req);
    const data = patsOf(user.id).map((t) => ({
      tid: t.patId,
      uid: t.userId,
      label: t.label ?? '',
      createdAt: iso(t.createdAt),
      expiresAt: iso(t.expiresAt),
    }));
    return ok({ data });
  });

  // Creation follows the spec ("403: caller must be an admin"), so an admin may mint for any user; the
  // Enterprise docs (api-extra §7.4) say only for yourself, which the emulator does not enforce.
  router.post('/api/v3/user/:id/token', (req) => {
    const p = guard(req);
    if (!p.admin) throw forbidden();
    const user = state.users.get(req.params.id!);
    if (!user) throw userNotFound(req.params.id!);
    const body = objectBody(req);
    const label = optionalString(body, 'label');
    if (!label?.trim()) throw badRequest('label is required');
    const ms = body.millisecondsToExpire;
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) {
      throw badRequest('millisecondsToExpire must be a positive number');
    }
    if (ms > MAX_PAT_LIFETIME_MS)
      throw badRequest('millisecondsToExpire exceeds the maximum lifetime of 180 days');
    const issued = state.issueToken(user.id, 'pat', Math.floor(ms), { patId: randomUUID(), label });
    // The body is the bare token; its Content-Type is unconfirmed (api-extra §12), text/plain is the guess.
    return { status: 200, text: issued.token, contentType: 'text/plain' };
  });

  router.delete('/api/v3/user/:id/token/:tid', (req) => {
    const user = ownerOrAdmin(req);
    const pat = patsOf(user.id).find((t) => t.patId === req.params.tid);
    if (!pat) throw notFound(`Personal access token '${req.params.tid}' not found`);
    state.tokens.delete(pat.token);
    return noContent();
  });
  router.delete('/api/v3/user/:id/token', (req) => {
    const user = ownerOrAdmin(req);
    for (const t of patsOf(user.id)) state.tokens.delete(t.token);
    return noContent();
  });
}

// ── Workload queues ─────────────────────────────────────────────────────────────────────────────────

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

/** Queues and the single ruleset; shared as `area.shared.queues` so jobs can name a queue. */
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
function registerQueues(area: AreaContext, store: QueueStore): void {
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

/** The ruleset (api-extra §9.2): one object, replaced as a whole by PUT with the current tag. */
function registerRules(area: AreaContext, store: QueueStore): void {
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

// ── Reflection summary ──────────────────────────────────────────────────────────────────────────────

export interface ReflectionSummaryItem {
  id: string;
  reflectionType: 'RAW' | 'AGGREGATION';
  name: string;
  createdAt: string;
  updatedAt: string;
  currentSizeBytes: number;
  outputRecords: number;
  totalSizeBytes: number;
  datasetId: string;
  datasetType: 'PHYSICAL_DATASET' | 'VIRTUAL_DATASET';
  datasetPath: string[];
  status: {
    configStatus: 'OK' | 'INVALID';
    refreshStatus: string;
    availabilityStatus: 'NONE' | 'EXPIRED' | 'AVAILABLE';
    combinedStatus: string;
    refreshMethod: 'NONE' | 'FULL' | 'INCREMENTAL';
    failureCount: number;
    lastFailureMessage?: string;
    lastDataFetchAt: string | null;
    expiresAt: string | null;
    lastRefreshDurationMillis: number;
  };
  consideredCount: number;
  matchedCount: number;
  chosenCount: number;
  consideredJobsLink: string;
  matchedJobsLink: string;
  chosenJobsLink: string;
  isArrowCachingEnabled: boolean;
  isCanView: boolean;
  isCanAlter: boolean;
  isEnabled: boolean;
}

const SEEDED_REFLECTIONS = 120;
const REFRESH_STATUSES = ['SCHEDULED', 'MANUAL', 'RUNNING', 'GIVEN_UP', 'ON_DATA_CHANGES'];
const SPACES = ['Sales', 'Marketing', 'Finance', 'Ops'];
const TABLES = ['orders', 'customers', 'events', 'invoices', 'trips', 'zips'];
const SEED_EPOCH = Date.UTC(2024, 2, 1);

/**
 * Deterministic synthetic reflections (enough for three pages at the default size). They sit on 24
 * datasets; odd ones are views in a space, even ones promoted files in the `Samples` source.
 */
export function seedReflections(count = SEEDED_REFLECTIONS): ReflectionSummaryItem[] {
  return Array.from({ length: count }, (_, i) => seedReflection(i));
}

function seedReflection(i: number): ReflectionSummaryItem {
  const d = i % 24;
  const space = SPACES[d % SPACES.length]!;
  const table = TABLES[Math.floor(d / SPACES.length) % TABLES.length]!;
  const virtual = d % 2 === 1;
  const type = i % 3 === 0 ? 'AGGREGATION' : 'RAW';
  const id = stableUuid(`reflection-${i}`);
  const enabled = i % 10 !== 9;
  const refreshStatus = REFRESH_STATUSES[i % REFRESH_STATUSES.length]!;
  const invalid = i % 17 === 16;
  const availability = refreshStatus === 'GIVEN_UP' ? 'NONE' : i % 7 === 6 ? 'EXPIRED' : 'AVAILABLE';
  const created = SEED_EPOCH + i * 3_600_000;
  const fetched = availability === 'NONE' ? null : created + 1_800_000;
  const link = (rel: string): string =>
    `/jobs?filters=${encodeURIComponent(JSON.stringify({ [rel]: [id] }))}`;
  return {
    id,
    reflectionType: type,
    name: `${table}_${type.toLowerCase()}_${String(i).padStart(3, '0')}`,
    createdAt: iso(created),
    updatedAt: iso(created + 1_800_000),
    currentSizeBytes: fetched ? 4096 * (i + 1) : 0,
    outputRecords: fetched ? 1000 + i * 13 : -1,
    totalSizeBytes: fetched ? 8192 * (i + 1) : 0,
    datasetId: stableUuid(`dataset-${d}`),
    datasetType: virtual ? 'VIRTUAL_DATASET' : 'PHYSICAL_DATASET',
    datasetPath: virtual ? [space, 'curated', table] : ['Samples', space.toLowerCase(), `${table}.parquet`],
    status: {
      configStatus: invalid ? 'INVALID' : 'OK',
      refreshStatus,
      availabilityStatus: availability,
      combinedStatus: combinedStatus(enabled, invalid, refreshStatus, availability),
      refreshMethod: fetched ? (i % 2 ? 'FULL' : 'INCREMENTAL') : 'NONE',
      failureCount: refreshStatus === 'GIVEN_UP' ? 3 : 0,
      lastFailureMessage: refreshStatus === 'GIVEN_UP' ? 'Refresh failed: source unavailable' : undefined,
      // The summary documents these as "ISO or null", so null is sent rather than the field left out.
      lastDataFetchAt: fetched ? iso(fetched) : null,
      expiresAt: fetched ? iso(fetched + 3 * 3_600_000) : null,
      lastRefreshDurationMillis: fetched ? 1000 + i * 37 : -1,
    },
    consideredCount: i % 11,
    matchedCount: i % 5,
    chosenCount: i % 3,
    consideredJobsLink: link('crf'),
    matchedJobsLink: link('mrf'),
    chosenJobsLink: link('arf'),
    isArrowCachingEnabled: i % 4 === 0,
    isCanView: true,
    isCanAlter: true,
    isEnabled: enabled,
  };
}

function combinedStatus(enabled: boolean, invalid: boolean, refresh: string, availability: string): string {
  if (!enabled) return 'DISABLED';
  if (invalid) return 'INVALID';
  if (refresh === 'GIVEN_UP') return 'FAILED';
  if (refresh === 'RUNNING') return 'REFRESHING';
  if (availability === 'EXPIRED') return 'EXPIRED';
  return 'CAN_ACCELERATE';
}

interface SummaryFilter {
  reflectionType?: string[];
  refreshStatus?: string[];
  availabilityStatus?: string[];
  configStatus?: string[];
  enabledFlag?: boolean;
  reflectionNameOrDatasetPath?: string;
  reflectionIds?: string[];
}

const ARRAY_FILTERS = [
  'reflectionType',
  'refreshStatus',
  'availabilityStatus',
  'configStatus',
  'reflectionIds',
];
const ORDER_KEYS: Record<string, (r: ReflectionSummaryItem) => string> = {
  reflectionName: (r) => r.name,
  datasetName: (r) => r.datasetPath.join('.'),
  reflectionType: (r) => r.reflectionType,
};

/** The filter is URL-encoded JSON (URLSearchParams has already decoded it once). Texts are unconfirmed. */
function parseSummaryFilter(raw: string | null): SummaryFilter {
  if (!raw) return {};
  let f: unknown;
  try {
    f = JSON.parse(raw);
  } catch {
    throw badRequest(`Invalid filter: ${raw}`);
  }
  if (!f || typeof f !== 'object' || Array.isArray(f)) throw badRequest(`Invalid filter: ${raw}`);
  const obj = f as Json;
  for (const [k, v] of Object.entries(obj)) {
    const okType = ARRAY_FILTERS.includes(k)
      ? Array.isArray(v) && v.every((x) => typeof x === 'string')
      : k === 'enabledFlag'
        ? typeof v === 'boolean'
        : k === 'reflectionNameOrDatasetPath' && typeof v === 'string';
    if (!okType) throw badRequest(`Invalid filter attribute: ${k}`);
  }
  if (obj.reflectionIds && Object.keys(obj).length > 1) {
    throw badRequest('reflectionIds cannot be combined with other filter attributes');
  }
  return obj as SummaryFilter;
}

function matchesSummary(r: ReflectionSummaryItem, f: SummaryFilter): boolean {
  if (f.reflectionIds) return f.reflectionIds.includes(r.id);
  if (f.reflectionType && !f.reflectionType.includes(r.reflectionType)) return false;
  if (f.refreshStatus && !f.refreshStatus.includes(r.status.refreshStatus)) return false;
  if (f.availabilityStatus && !f.availabilityStatus.includes(r.status.availabilityStatus)) return false;
  if (f.configStatus && !f.configStatus.includes(r.status.configStatus)) return false;
  if (f.enabledFlag !== undefined && r.isEnabled !== f.enabledFlag) return false;
  const q = f.reflectionNameOrDatasetPath?.toLowerCase();
  if (q && !r.name.toLowerCase().includes(q) && !r.datasetPath.join('.').toLowerCase().includes(q))
    return false;
  return true;
}

function sortSummaries(items: ReflectionSummaryItem[], orderBy: string | null): ReflectionSummaryItem[] {
  if (!orderBy) return items;
  const desc = orderBy.startsWith('-');
  const key = ORDER_KEYS[desc ? orderBy.slice(1) : orderBy];
  if (!key) throw badRequest(`Invalid orderBy: ${orderBy}`);
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return [...items].sort(
    (a, b) => (desc ? -1 : 1) * cmp(key(a), key(b)) || cmp(a.name, b.name) || cmp(a.id, b.id),
  );
}

/**
 * The page token carries the offset and the filter and order of the first request: dremio-js sends only
 * `maxResults` and `pageToken` after the first page, so the server must remember them. A request that
 * repeats them differently is refused.
 */
interface PageState {
  o: number;
  f: string | null;
  s: string | null;
}

function decodePageToken(token: string, req: EmuRequest): PageState {
  let st: PageState;
  try {
    st = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as PageState;
  } catch {
    throw badRequest('Invalid page token');
  }
  const sent = (k: string): string | null => req.query.get(k);
  if (
    typeof st?.o !== 'number' ||
    (sent('filter') !== null && sent('filter') !== st.f) ||
    (sent('orderBy') !== null && sent('orderBy') !== st.s)
  ) {
    throw badRequest('Invalid page token');
  }
  return st;
}

const encodePageToken = (st: PageState): string => Buffer.from(JSON.stringify(st)).toString('base64url');

function registerReflectionSummary(area: AreaContext): void {
  const reflections = seedReflections();
  // Shared so the jobs area can cite reflection ids in job acceleration data.
  area.shared.reflections = reflections;

  area.router.get('/api/v3/reflection-summary', (req) => {
    requireAuth(req);
    const rawMax = req.query.get('maxResults');
    const max = rawMax === null ? 50 : /^\d+$/.test(rawMax) ? Number(rawMax) : Number.NaN;
    // The real text for an out-of-range page size is unconfirmed.
    if (!(max >= 1 && max <= 100)) throw badRequest('maxResults must be between 1 and 100');
    const token = req.query.get('pageToken');
    const st: PageState = token
      ? decodePageToken(token, req)
      : { o: 0, f: req.query.get('filter'), s: req.query.get('orderBy') };
    const filter = parseSummaryFilter(st.f);
    const all = sortSummaries(
      reflections.filter((r) => matchesSummary(r, filter)),
      st.s,
    );
    const data = all
      .slice(st.o, st.o + max)
      .map((r) => omitUndefined({ ...r, status: omitUndefined(r.status) }));
    const body: Json = { data };
    if (st.o + max < all.length) body.nextPageToken = encodePageToken({ ...st, o: st.o + max });
    // The flag's name is unconfirmed (docs: isCanAlterReflections; UI code: canAlterReflections).
    body.canAlterReflections = true;
    return ok(body);
  });
}
