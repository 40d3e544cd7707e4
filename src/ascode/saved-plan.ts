// Saved plans: `plan --out PLAN.json` writes the plan with what it read (ids, tags, tag and wiki versions, the
// admin kinds' state) and no secret value; `apply --plan PLAN.json` applies exactly it, without reading the
// files again. Every write of a saved plan carries the tags read when it was made, so an entity changed on the
// service since is a conflict (exit 5) for it alone. Secrets stay `${env:…}` references in the file and are
// taken from the environment when applying.
import { writeFileSync } from 'node:fs';
import * as z from 'zod/mini';
import { secretsInForce } from '../util/secrets.js';
import '../util/zod.js';
import { GrantsSchema } from '../api/grants.js';
import { RulesetSchema } from '../api/queues.js';
import { ReflectionSchema } from '../api/reflections.js';
import { QueueSchema, RoleSchema, UserSchema } from '../api/schemas/admin.js';
import { CatalogEntitySchema } from '../api/schemas/catalog.js';
import { DlakeError, UsageError } from '../errors.js';
import { formatPath } from '../util/catalog-ref.js';
import { describeFsError, readTextFile } from '../util/files.js';
import {
  checkPathComponents,
  type Definition,
  isAdminKind,
  KINDS,
  type Kind,
  parseDefinition,
} from './definitions.js';
import type { Change, PlanEntry } from './diff.js';
import { derivedCatalogChanges } from './plan.js';
import { secretFields } from './secret-fields.js';
import { checkSavedReferences, envReference } from './substitution.js';

const FORMAT = 'dlake-plan';
const VERSION = 1;

const EntrySchema = z.looseObject({
  action: z.enum(['create', 'update', 'delete']),
  def: z.looseObject({
    kind: z.enum(KINDS),
    path: z.array(z.string()),
    fields: z.record(z.string(), z.unknown()),
    tags: z.optional(z.array(z.string())),
    wiki: z.optional(z.string()),
  }),
  changes: z.array(z.looseObject({ field: z.string() })),
  current: z.optional(z.looseObject({ id: z.string() })),
  tagsVersion: z.optional(z.union([z.string(), z.number()])),
  wikiVersion: z.optional(z.union([z.string(), z.number()])),
  state: z.optional(z.unknown()),
  secrets: z.optional(z.array(z.string())),
});
const SavedPlanSchema = z.looseObject({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  url: z.string(),
  entries: z.array(EntrySchema),
});

/** Refuses a plan that would hold a secret: a source file's secret written as a value, not `${env:…}`. */
function checkNoSecret(plan: readonly PlanEntry[]): void {
  for (const e of plan) {
    if (e.def.kind !== 'source' || e.action === 'delete') continue;
    const config = (e.def.fields.config ?? {}) as Record<string, unknown>;
    for (const f of secretFields(e.def.fields.type)) {
      if (config[f] === undefined || envReference(config[f]) !== undefined) continue;
      throw new UsageError(
        `config.${f} of ${formatPath(e.def.path)} is a value, not \${env:NAME}: a saved plan never holds a secret`,
        { hint: `write it as \${env:NAME} in the file and set NAME when applying; nothing was saved` },
      );
    }
  }
}

/** Writes the plan made against `url` (the service's address) to `file`. */
export function writeSavedPlan(file: string, plan: readonly PlanEntry[], url: string): void {
  checkNoSecret(plan);
  const entries = plan.map(({ def, ...rest }) => ({
    ...rest,
    // The id is the service's, not the file's; what a write needs of it is in `current` or `state`.
    def: { kind: def.kind, path: def.path, fields: def.fields, tags: def.tags, wiki: def.wiki },
  }));
  const text = `${JSON.stringify({ format: FORMAT, version: VERSION, url, createdAt: new Date().toISOString(), entries }, null, 2)}\n`;
  try {
    // What the service answered is kept, but never a secret in force it echoed (output/secrets.ts's rule).
    writeFileSync(file, secretsInForce()?.redact(text) ?? text);
  } catch (e) {
    throw new UsageError(`cannot write the plan ${file}: ${describeFsError(e)}`);
  }
}

const MemberSchema = z.looseObject({ id: z.string(), name: z.string() });

/**
 * What apply needs of an entry besides its definition, by kind: the actions a plan makes of it, and for the
 * others than create, what was read when planning (the catalog's `current`, the admin kinds' `state`), in the
 * API's shapes. An entry that does not fit would make apply send something no plan makes, or fail on it.
 */
const READ: Record<Kind, Partial<Record<PlanEntry['action'], z.ZodMiniType | 'none' | 'optional'>>> = {
  space: { create: 'none', update: CatalogEntitySchema, delete: CatalogEntitySchema },
  folder: { create: 'none', update: CatalogEntitySchema, delete: CatalogEntitySchema },
  view: { create: 'none', update: CatalogEntitySchema, delete: CatalogEntitySchema },
  dataset: { create: 'none', update: CatalogEntitySchema, delete: CatalogEntitySchema },
  source: { create: 'none', update: CatalogEntitySchema, delete: CatalogEntitySchema },
  queue: { create: 'none', update: QueueSchema },
  rule: { update: RulesetSchema },
  reflection: { create: 'none', update: ReflectionSchema },
  grant: {
    create: 'optional',
    update: z.looseObject({ entityId: z.string(), grants: GrantsSchema }),
  },
  user: { create: 'none', update: UserSchema, delete: UserSchema },
  role: {
    create: 'none',
    update: z.looseObject({
      role: RoleSchema,
      members: z.looseObject({ users: z.array(MemberSchema), roles: z.array(MemberSchema) }),
    }),
    delete: RoleSchema,
  },
};

/** The first problem of a zod result, as `at.path: message`. */
function firstIssue(error: z.core.$ZodError, at: string): string {
  const issue = error.issues[0]!;
  return `${[at, ...issue.path.map(String)].filter(Boolean).join('.')}: ${issue.message}`;
}

/**
 * One entry of a saved plan checked as a definition file is (its kind, path and fields: parseDefinition and
 * checkPathComponents, as readPlan checks a folder's files), and
 * what it carries checked against what apply needs of that kind and action (READ); `at` names it in messages.
 */
function checkEntry(entry: z.infer<typeof EntrySchema>, at: string): PlanEntry {
  const { def, action } = entry;
  const shape: Record<string, unknown> = { ...def.fields, kind: def.kind, path: def.path };
  if (def.tags !== undefined) shape.tags = def.tags;
  if (def.wiki !== undefined) shape.wiki = def.wiki;
  let checked: Definition;
  try {
    checked = parseDefinition(shape, `${at}.def`);
    checkPathComponents(checked, `${at}.def`);
  } catch (err) {
    if (!(err instanceof DlakeError)) throw err;
    throw new UsageError([err.message, ...err.details].join(': '));
  }
  const need = READ[def.kind][action];
  if (need === undefined) throw new UsageError(`${at}: a plan never makes a ${action} of a ${def.kind}`);
  const field = isAdminKind(def.kind) ? 'state' : 'current';
  const read = entry[field];
  if (need === 'none' || (need === 'optional' && read === undefined)) {
    return { ...entry, def: checked, [field]: undefined } as PlanEntry;
  }
  if (need === 'optional') throw new UsageError(`${at}.${field}: a ${def.kind} ${action} reads nothing`);
  if (read === undefined) {
    throw new UsageError(`${at}: a ${def.kind} ${action} needs what was read when planning (${field})`);
  }
  const parsed = need.safeParse(read);
  if (!parsed.success) throw new UsageError(firstIssue(parsed.error, `${at}.${field}`));
  // Kept as it was saved (the service's answer as plan read it), only checked.
  return { ...entry, def: checked } as PlanEntry;
}

/**
 * The saved plan in `file`, refused (exit 2, one line naming the file and what is wrong, nothing sent) when it
 * is not one, when an entry is not what `plan` makes (checkEntry), when a secret names one of dlake's own
 * variables, or when it was made against another service than `url`.
 */
export function readSavedPlan(file: string, url: string): PlanEntry[] {
  const text = readTextFile(file, 'the plan');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not a saved plan: it is not JSON`, { hint: MAKE_ONE });
  }
  const parsed = SavedPlanSchema.safeParse(value);
  if (!parsed.success) {
    throw new UsageError(`${file} is not a saved plan of this dlake: ${firstIssue(parsed.error, '')}`, {
      hint: MAKE_ONE,
    });
  }
  if (parsed.data.url.replace(/\/+$/, '') !== url.replace(/\/+$/, '')) {
    throw new UsageError(`${file} was made against ${parsed.data.url}, not ${url}`, {
      hint: 'apply it with the profile it was planned with, or plan again against this service',
    });
  }
  let entries: PlanEntry[];
  try {
    entries = parsed.data.entries.map((e, i) => checkEntry(e, `entries.${i}`));
    checkSavedReferences(entries.map((e, i) => ({ where: `entries.${i}.def`, def: e.def })));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    throw new UsageError(`${file} is not a plan dlake makes: ${err.message}`, { hint: MAKE_ONE });
  }
  checkNoSecret(entries);
  for (const [i, e] of entries.entries()) checkChangesOf(e, `${file}: entries.${i}`);
  return entries;
}

/**
 * A saved entry carries its change twice: `changes`, which plan and `apply --plan` show, and `def`, which apply
 * sends. A file edited between review and apply would have apply send what nobody reviewed: the changes are
 * derived from `def` again (and what was read when planning) and the entry refused when they differ. For the
 * admin kinds, whose changes their modules derive from reads the plan does not keep whole, each shown change's
 * new value must be the one `def` holds.
 */
function checkChangesOf(entry: PlanEntry, at: string): void {
  const derived = derivedCatalogChanges(entry);
  const differ = (why: string) =>
    new UsageError(
      `${at} (${formatPath(entry.def.path) || entry.def.kind}): its changes are not what its def makes: ${why}`,
      {
        hint: MAKE_ONE,
      },
    );
  if (derived) {
    const key = (c: Change) => JSON.stringify([c.field, c.from ?? null, c.to ?? null]);
    const shown = new Set(entry.changes.map(key));
    const made = new Set(derived.map(key));
    const missing = derived.find((c) => !shown.has(key(c)));
    if (missing)
      throw differ(
        `${missing.field} would be sent as ${JSON.stringify(missing.to ?? null)}, which the plan does not show`,
      );
    const extra = entry.changes.find((c) => !made.has(key(c)));
    if (extra)
      throw differ(
        `the plan shows ${extra.field} as ${JSON.stringify(extra.to ?? null)}, which is not what would be sent`,
      );
    return;
  }
  for (const c of entry.changes) {
    if (!('to' in c)) continue;
    const sent = valueAt(entry.def.fields, c.field);
    if (sent !== NOT_THERE && JSON.stringify(sent) !== JSON.stringify(c.to)) {
      throw differ(`the plan shows ${c.field} as ${JSON.stringify(c.to)}, def sends ${JSON.stringify(sent)}`);
    }
  }
}

const NOT_THERE = Symbol('not there');

/** The value at a dotted field (`config.hostname`) of `fields`, or NOT_THERE. */
function valueAt(fields: Record<string, unknown>, dotted: string): unknown {
  let at: unknown = fields;
  for (const part of dotted.split('.')) {
    if (!at || typeof at !== 'object' || !Object.hasOwn(at, part)) return NOT_THERE;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

const MAKE_ONE = 'make it again with dlake plan --dir DIR --out FILE; nothing was applied';
