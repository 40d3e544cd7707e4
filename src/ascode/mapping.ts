// `--map FILE`: users and roles renamed between environments (`users: {alice: alice.prod}`, `roles: {…}`),
// wherever a definition names them: a user's or role's own file, a role's members, a grant's grantees, and the
// conditions of workload rules (`USER = 'x'`, `USER IN ('x', …)`, `is_member('r')`). Names match without
// regard to case, as the service compares them (docs/api-facts.md §7.2, §8).
import { parse } from 'yaml';
import * as z from 'zod/mini';
import '../util/zod.js';
import { UsageError } from '../errors.js';
import { readTextFile } from '../util/files.js';
import { firstLine } from '../util/first-line.js';
import type { Definition } from './definitions.js';

/** Names by their lower case; remembers which were looked up, so that a name no file holds can be told. */
class Names extends Map<string, string> {
  readonly used = new Set<string>();
  /** Each name as the map file spells it. */
  readonly spelled = new Map<string, string>();

  override get(key: string): string | undefined {
    const found = super.get(key);
    if (found !== undefined) this.used.add(key);
    return found;
  }
}

interface NameMap {
  users: Names;
  roles: Names;
}

const NamesSchema = z.record(z.string(), z.string({ error: 'must be a name' }), {
  error: 'must map each name to its name in this environment',
});
const MapFileSchema = z.strictObject({ users: z.optional(NamesSchema), roles: z.optional(NamesSchema) });

/** Reads and checks a map file; a bad one is exit 2, naming the file. */
export function readNameMap(file: string): NameMap {
  const text = readTextFile(file, 'the map');
  let value: unknown;
  try {
    value = parse(text);
  } catch (e) {
    throw new UsageError(`${file} is not valid YAML: ${firstLine(e)}`);
  }
  const parsed = MapFileSchema.safeParse(value ?? {});
  if (!parsed.success) {
    throw new UsageError(`${file} is not a map of users and roles`, {
      details: parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(file)'}: ${i.message}`),
      hint: 'e.g. "users: {alice: alice.prod}" and "roles: {analysts: analysts_prod}"',
    });
  }
  const lower = (m: Record<string, string> | undefined) => {
    const names = new Names();
    for (const [k, v] of Object.entries(m ?? {})) {
      names.set(k.toLowerCase(), v);
      names.spelled.set(k.toLowerCase(), k);
    }
    return names;
  };
  return { users: lower(parsed.data.users), roles: lower(parsed.data.roles) };
}

const rename = (m: Map<string, string>, name: string) => m.get(name.toLowerCase()) ?? name;

/** Keys of a grantee group renamed; two names becoming one keep every privilege of both. */
function renameKeys(m: Map<string, string>, group: unknown): unknown {
  if (!group || typeof group !== 'object' || Array.isArray(group)) return group;
  const out: Record<string, unknown[]> = {};
  for (const [name, privileges] of Object.entries(group)) {
    const to = rename(m, name);
    out[to] = [...new Set([...(out[to] ?? []), ...(Array.isArray(privileges) ? privileges : [])])];
  }
  return out;
}

const LITERAL = "'(?:[^']|'')*'";
const quote = (name: string) => `'${name.replace(/'/g, "''")}'`;
const literalRename = (m: Map<string, string>) => (lit: string) =>
  quote(rename(m, lit.slice(1, -1).replace(/''/g, "'")));

/** The user and role names in a rule's condition renamed; the rest of the expression kept as written. */
export function renameInCondition(condition: string, map: NameMap): string {
  const users = literalRename(map.users);
  const roles = literalRename(map.roles);
  return condition
    .replace(
      new RegExp(String.raw`(\bis_member\s*\(\s*)(${LITERAL})`, 'gi'),
      (_, head: string, lit: string) => head + roles(lit),
    )
    .replace(
      new RegExp(String.raw`(\bUSER\s*(?:=|<>|!=)\s*)(${LITERAL})`, 'gi'),
      (_, head: string, lit: string) => head + users(lit),
    )
    .replace(
      new RegExp(String.raw`(\bUSER\s+(?:NOT\s+)?IN\s*\()((?:\s*${LITERAL}\s*,?)*)`, 'gi'),
      (_, head: string, list: string) => head + list.replace(new RegExp(LITERAL, 'g'), users),
    );
}

function renameRule(rule: unknown, map: NameMap): unknown {
  if (!rule || typeof rule !== 'object') return rule;
  const r = rule as Record<string, unknown>;
  return typeof r.conditions === 'string' ? { ...r, conditions: renameInCondition(r.conditions, map) } : r;
}

/** The definitions with every user and role name they hold renamed by the map. */
export function applyNameMap(defs: readonly Definition[], map: NameMap): Definition[] {
  return defs.map((def): Definition => {
    switch (def.kind) {
      case 'user':
        return { ...def, path: [rename(map.users, def.path[0]!)] };
      case 'role': {
        const members = def.fields.members as { users?: string[]; roles?: string[] } | undefined;
        const fields = { ...def.fields };
        if (members) {
          fields.members = {
            ...members,
            ...(members.users ? { users: members.users.map((n) => rename(map.users, n)) } : {}),
            ...(members.roles ? { roles: members.roles.map((n) => rename(map.roles, n)) } : {}),
          };
        }
        return { ...def, path: [rename(map.roles, def.path[0]!)], fields };
      }
      case 'grant':
        return {
          ...def,
          fields: {
            ...def.fields,
            ...(def.fields.users ? { users: renameKeys(map.users, def.fields.users) } : {}),
            ...(def.fields.roles ? { roles: renameKeys(map.roles, def.fields.roles) } : {}),
          },
        };
      case 'rule':
        return {
          ...def,
          fields: {
            ...def.fields,
            rules: Array.isArray(def.fields.rules)
              ? def.fields.rules.map((r) => renameRule(r, map))
              : def.fields.rules,
            defaultRule: renameRule(def.fields.defaultRule, map),
          },
        };
      default:
        return def;
    }
  });
}

/** The names of the map that no definition held (after applyNameMap): a misspelt name renames nothing. */
export function unusedNames(map: NameMap): string[] {
  const unused = (kind: string, names: Names) =>
    [...names.keys()].filter((k) => !names.used.has(k)).map((k) => `${kind} ${names.spelled.get(k)}`);
  return [...unused('user', map.users), ...unused('role', map.roles)];
}
