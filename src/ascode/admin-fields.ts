// The fields of the admin kinds' files (queue, rule, reflection, grant) and the checks a file of one of them
// passes before anything is sent. Fields keep the API's names and units (bytes, milliseconds).
import { QUEUE_FIELDS } from '../api/queues.js';
import { FIELD_LISTS } from '../api/reflections.js';
import { UsageError } from '../errors.js';

/** A queue's limits (its name is its path). */
export const QUEUE_LIMITS = QUEUE_FIELDS.filter((f) => f !== 'name');

/** A reflection's own settings and field lists (its dataset and name are its path). */
export const REFLECTION_SETTINGS = [
  'type',
  'enabled',
  'arrowCachingEnabled',
  'partitionDistributionStrategy',
] as const;
export const REFLECTION_FIELDS = [...REFLECTION_SETTINGS, ...FIELD_LISTS] as const;

/** A local user's own fields (its name is its path); never a password, an id or a tag. */
export const USER_FIELDS = ['firstName', 'lastName', 'email'] as const;
/** A role's description and its members, users and roles by name (its name is its path). */
export const ROLE_FIELDS = ['description', 'members'] as const;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Refuses a file whose admin fields have the wrong shape; `where` names the file. */
export function checkAdminDefinition(
  kind: 'queue' | 'rule' | 'reflection' | 'grant' | 'user' | 'role',
  path: readonly string[],
  fields: Record<string, unknown>,
  where: string,
): void {
  const fail = (message: string, hint?: string): never => {
    throw new UsageError(`${where}: ${message}`, hint ? { hint } : {});
  };
  switch (kind) {
    case 'queue':
      if (path.length !== 1) fail('a queue path has one component, its name');
      if (fields.cpuTier !== undefined && typeof fields.cpuTier !== 'string')
        fail('cpuTier must be a string');
      for (const f of QUEUE_LIMITS.filter((l) => l !== 'cpuTier')) {
        const v = fields[f];
        if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0)) {
          fail(
            `${f} must be a number of ${f.endsWith('Ms') ? 'milliseconds' : f.endsWith('Bytes') ? 'bytes' : 'jobs'}`,
          );
        }
      }
      return;
    case 'rule': {
      if (!Array.isArray(fields.rules)) fail('rules must be a list of rules, in priority order');
      (fields.rules as unknown[]).forEach((r, i) => {
        if (!isObject(r) || typeof r.name !== 'string') fail(`rules[${i}] must have a name`);
      });
      if (!isObject(fields.defaultRule) || typeof fields.defaultRule.name !== 'string') {
        fail('defaultRule must be a rule with a name', 'the service keeps one default rule; pull it first');
      }
      return;
    }
    case 'reflection':
      if (path.length < 2) fail("a reflection path is its dataset's path, then the reflection's name");
      if (fields.type !== 'RAW' && fields.type !== 'AGGREGATION') fail('type must be RAW or AGGREGATION');
      for (const f of ['enabled', 'arrowCachingEnabled'] as const) {
        if (fields[f] !== undefined && typeof fields[f] !== 'boolean') fail(`${f} must be true or false`);
      }
      for (const list of FIELD_LISTS) {
        const v = fields[list];
        if (
          v !== undefined &&
          (!Array.isArray(v) || v.some((x) => !isObject(x) || typeof x.name !== 'string'))
        ) {
          fail(`${list} must be a list of fields, each with a name`);
        }
      }
      return;
    case 'grant':
      for (const f of ['users', 'roles'] as const) {
        const v = fields[f];
        if (v === undefined) continue;
        if (
          !isObject(v) ||
          Object.values(v).some((p) => !Array.isArray(p) || p.some((x) => typeof x !== 'string'))
        ) {
          fail(`${f} must map each ${f === 'users' ? 'user' : 'role'} name to a list of privileges`);
        }
      }
      return;
    case 'user':
    case 'role': {
      if (path.length !== 1) fail(`a ${kind} path has one component, its name`);
      // The system roles are built into the service, which refuses to change them (docs/api-facts.md §8).
      if (kind === 'role' && ['PUBLIC', 'ADMIN'].includes(path[0]!.toUpperCase())) {
        fail(`${path[0]} is a system role, built into the service: it cannot be defined in a file`);
      }
      const texts = kind === 'user' ? USER_FIELDS : (['description'] as const);
      for (const f of texts) {
        if (fields[f] !== undefined && typeof fields[f] !== 'string') fail(`${f} must be a string`);
      }
      const members = fields.members;
      if (kind === 'role' && members !== undefined) {
        const lists = isObject(members) ? Object.entries(members) : undefined;
        if (
          !lists ||
          lists.some(
            ([k, v]) =>
              (k !== 'users' && k !== 'roles') || !Array.isArray(v) || v.some((x) => typeof x !== 'string'),
          )
        ) {
          fail('members must hold users and roles, each a list of names');
        }
      }
      return;
    }
  }
}
