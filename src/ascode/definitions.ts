import { stringify } from 'yaml';
import * as z from 'zod/mini';
import '../util/zod.js';
import type { CatalogEntity } from '../api/schemas/catalog.js';
import { segmentProblem } from '../api/url-segment.js';
import { UsageError } from '../errors.js';
import { formatPath } from '../util/catalog-ref.js';
import {
  checkAdminDefinition,
  QUEUE_LIMITS,
  REFLECTION_FIELDS,
  ROLE_FIELDS,
  USER_FIELDS,
} from './admin-fields.js';
import { secretFields, secretVariable } from './secret-fields.js';

/** The catalog's kinds, always pulled. */
const CATALOG_KINDS = ['space', 'folder', 'view', 'dataset', 'source'] as const;
/** The admin kinds, pulled with `--kinds` (src/ascode/admin-kinds.ts); their files are applied whenever present. */
export const ADMIN_KINDS = ['queue', 'rule', 'reflection', 'grant', 'user', 'role'] as const;
export const KINDS = [...CATALOG_KINDS, ...ADMIN_KINDS] as const;
export type Kind = (typeof KINDS)[number];
export type AdminKind = (typeof ADMIN_KINDS)[number];

export const isAdminKind = (kind: Kind): kind is AdminKind =>
  (ADMIN_KINDS as readonly string[]).includes(kind);

export interface Definition {
  kind: Kind;
  path: string[];
  /** The entity's own fields: sql/sqlContext, format, type/config/metadataPolicy. */
  fields: Record<string, unknown>;
  tags?: string[];
  wiki?: string;
  /** The service's id, when the definition was read from the service (never written to a file). */
  id?: string;
  /** Where it was read from (a file of the folder, an entry of a saved plan), as messages name it; never written. */
  file?: string;
}

/** The fields each kind keeps, in the API's names. */
const KIND_FIELDS: Record<Kind, readonly string[]> = {
  space: [],
  folder: [],
  view: ['sql', 'sqlContext'],
  dataset: ['format'],
  source: ['type', 'config', 'metadataPolicy'],
  queue: QUEUE_LIMITS,
  rule: ['rules', 'defaultRule'],
  reflection: REFLECTION_FIELDS,
  grant: ['users', 'roles'],
  user: USER_FIELDS,
  role: ROLE_FIELDS,
};

/**
 * Fields inside a kind's fields that the server generates and that differ between environments even for the same
 * definition, left out of files and never compared (docs/cli-contract.md, "Definitions as code"): a promoted
 * dataset's `format.ctime` (the file's time), `format.location` (the absolute path under the source's root) and
 * `format.isFolder` (what the source holds at that path).
 */
const GENERATED: Partial<Record<Kind, Record<string, readonly string[]>>> = {
  dataset: { format: ['ctime', 'location', 'isFolder'] },
};

/** `fields` without what the server generates for `kind` (a copy; the given object is left as it is). */
function withoutGenerated(kind: Kind, fields: Record<string, unknown>): Record<string, unknown> {
  const generated = GENERATED[kind];
  if (!generated) return fields;
  const out = { ...fields };
  for (const [field, names] of Object.entries(generated)) {
    const value = out[field];
    if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
    const kept = { ...(value as Record<string, unknown>) };
    for (const name of names) delete kept[name];
    out[field] = kept;
  }
  return out;
}

/** Kinds that can carry tags (the service refuses them on folders). */
export const TAGGABLE: ReadonlySet<Kind> = new Set(['space', 'view', 'dataset', 'source']);

/** The kind of a full entity, or undefined for what is not a definition (homes, files, functions). */
export function kindOf(entity: Pick<CatalogEntity, 'entityType' | 'type'>): Kind | undefined {
  switch (entity.entityType) {
    case 'space':
    case 'folder':
    case 'source':
      return entity.entityType;
    case 'dataset':
      return entity.type === 'VIRTUAL_DATASET' ? 'view' : 'dataset';
    default:
      return undefined;
  }
}

/** An entity as read from the service, with its tags and wiki, as a definition. */
export function toDefinition(
  entity: CatalogEntity,
  path: string[],
  collab: { tags?: readonly string[]; wiki?: string },
): Definition | undefined {
  const kind = kindOf(entity);
  if (!kind) return undefined;
  let fields: Record<string, unknown> = {};
  const raw = entity as Record<string, unknown>;
  for (const name of KIND_FIELDS[kind]) {
    if (raw[name] !== undefined && raw[name] !== null) fields[name] = raw[name];
  }
  fields = withoutGenerated(kind, fields);
  if (kind === 'source' && fields.config && typeof fields.config === 'object') {
    const config = { ...(fields.config as Record<string, unknown>) };
    for (const name of secretFields(entity.type)) {
      // A set secret comes back masked; it is written as the variable to take it from, never as a value.
      if (config[name] === undefined || config[name] === null || config[name] === '') delete config[name];
      else config[name] = `\${env:${secretVariable(path[0]!, name)}}`;
    }
    fields.config = config;
  }
  const def: Definition = { kind, path, fields, id: entity.id };
  if (collab.tags?.length) def.tags = [...collab.tags];
  if (collab.wiki) def.wiki = collab.wiki;
  return def;
}

/** Keys sorted at every level, so that the same entity always gives the same bytes. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sorted((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** The YAML text of a definition: kind, path, the fields in name order, then tags and wiki. */
export function formatDefinition(def: Definition): string {
  const doc: Record<string, unknown> = { kind: def.kind, path: def.path };
  Object.assign(doc, sorted(def.fields));
  if (def.tags) doc.tags = def.tags;
  if (def.wiki !== undefined) doc.wiki = def.wiki;
  // The ruleset is one per service: its file has no path.
  if (def.kind === 'rule') delete doc.path;
  return stringify(doc, { lineWidth: 0 });
}

const DefinitionFileSchema = z.looseObject({
  kind: z.enum(KINDS, { error: `must be one of ${KINDS.join(', ')}` }),
  // Optional here for the ruleset alone, which has no path; every other kind needs one (parseDefinition).
  path: z.optional(z.array(z.string(), { error: 'must be a list of path components' })),
  tags: z.optional(z.array(z.string(), { error: 'must be a list of strings' })),
  wiki: z.optional(z.string({ error: 'must be a string' })),
});

/**
 * Refuses a definition whose path could not name an entity of the service: a component that is empty, `.` or
 * `..`, or that holds a control character (a line feed). Each component goes into a URL path or a request
 * body, where one of those would name another entity, and hides on a terminal. Checked before a plan is
 * made, from files or from a saved plan (a pull writes such a name, should a service hold one, as a file name
 * of its own).
 */
export function checkPathComponents(def: Pick<Definition, 'path'>, where: string): void {
  for (const component of def.path) {
    const problem = segmentProblem(component);
    if (problem)
      throw new UsageError(`${where}: the path component ${JSON.stringify(component)}: ${problem}`);
  }
}

/**
 * A key `__proto__` (at any depth) is no field of any kind: copied by assignment, as a schema's parse does, it would
 * set the copy's prototype, whose members then read as fields the plan never showed (a view's `sql`).
 */
function refuseProtoKeys(value: unknown, where: string, at: string[] = []): void {
  if (!value || typeof value !== 'object') return;
  for (const key of Object.keys(value)) {
    const path = [...at, key];
    if (key === '__proto__') {
      throw new UsageError(`${where}: ${path.join('.')}: "__proto__" is not a field of any definition`);
    }
    refuseProtoKeys((value as Record<string, unknown>)[key], where, path);
  }
}

/** Checks one parsed file (or a saved plan's definition); `where` names it in messages. */
export function parseDefinition(value: unknown, where: string): Definition {
  refuseProtoKeys(value, where);
  const parsed = DefinitionFileSchema.safeParse(value);
  if (!parsed.success) {
    throw new UsageError(`${where} is not a definition`, {
      details: parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(file)'}: ${i.message}`),
      hint: 'a definition needs kind and path, e.g. "kind: space" and "path: [Sales]"',
    });
  }
  const { kind, path: given, tags, wiki, ...rest } = parsed.data;
  const path = given ?? [];
  if (kind === 'rule' ? path.length > 0 : path.length === 0) {
    throw new UsageError(
      kind === 'rule'
        ? `${where}: the ruleset has no path (there is one per service)`
        : `${where} is not a definition`,
      kind === 'rule'
        ? {}
        : {
            details: [
              `path: ${parsed.data.path ? 'must not be empty' : 'must be a list of path components'}`,
            ],
            hint: 'a definition needs kind and path, e.g. "kind: space" and "path: [Sales]"',
          },
    );
  }
  let fields: Record<string, unknown> = {};
  for (const name of KIND_FIELDS[kind]) if (rest[name] !== undefined) fields[name] = rest[name];
  // A file pulled by an older dlake may hold them: they are not the file's to manage.
  fields = withoutGenerated(kind, fields);
  const unknown = Object.keys(rest).filter((k) => !KIND_FIELDS[kind].includes(k));
  if (unknown.length) {
    throw new UsageError(
      `${where}: unknown field${unknown.length > 1 ? 's' : ''} for a ${kind}: ${unknown.join(', ')}`,
    );
  }
  if ((kind === 'space' || kind === 'source') && path.length !== 1) {
    throw new UsageError(`${where}: a ${kind} path has one component`);
  }
  if (kind === 'view' && typeof fields.sql !== 'string') throw new UsageError(`${where}: a view needs sql`);
  if (kind === 'source' && typeof fields.type !== 'string')
    throw new UsageError(`${where}: a source needs type`);
  if (tags && !TAGGABLE.has(kind)) throw new UsageError(`${where}: a ${kind} cannot have tags`);
  if (wiki !== undefined && isAdminKind(kind)) throw new UsageError(`${where}: a ${kind} cannot have a wiki`);
  if (isAdminKind(kind)) checkAdminDefinition(kind, path, fields, where);
  const def: Definition = { kind, path, fields, file: where };
  if (tags) def.tags = tags;
  if (wiki !== undefined) def.wiki = wiki;
  return def;
}

/**
 * What identifies a definition: the catalog kinds share one namespace of paths (case-insensitive, as the
 * catalog); each admin kind has its own (queue names are exact, as the service matches them).
 */
export function definitionKey(def: Definition): string {
  if (def.kind === 'queue') return `queue:${JSON.stringify(def.path)}`;
  const path = JSON.stringify(def.path.map((c) => c.toLowerCase()));
  return isAdminKind(def.kind) ? `${def.kind}:${path}` : path;
}

/** How messages name a definition: its path, with the kind in front for the admin kinds. */
export function definitionLabel(def: Pick<Definition, 'kind' | 'path'>): string {
  switch (def.kind) {
    case 'rule':
      return 'the ruleset';
    case 'queue':
      return `queue ${formatPath(def.path)}`;
    case 'reflection':
      return `reflection ${def.path.at(-1)} on ${formatPath(def.path.slice(0, -1))}`;
    case 'grant':
      return `the grants on ${formatPath(def.path)}`;
    case 'user':
    case 'role':
      return `${def.kind} ${def.path[0]}`;
    default:
      return formatPath(def.path);
  }
}
