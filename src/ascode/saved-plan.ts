// Saved plans: `plan --out PLAN.json` writes the plan with what it read (ids, tags, tag and wiki versions, the
// admin kinds' state) and no secret value; `apply --plan PLAN.json` applies exactly it, without reading the
// files again. Every write of a saved plan carries the tags read when it was made, so an entity changed on the
// service since is a conflict (exit 5) for it alone. Secrets stay `${env:…}` references in the file and are
// taken from the environment when applying.
import { writeFileSync } from 'node:fs';
import * as z from 'zod/mini';
import '../util/zod.js';
import { UsageError } from '../errors.js';
import { formatPath } from '../util/catalog-ref.js';
import { describeFsError, readTextFile } from '../util/files.js';
import { envReference, KINDS, secretFields } from './definitions.js';
import type { PlanEntry } from './diff.js';

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
    writeFileSync(file, text);
  } catch (e) {
    throw new UsageError(`cannot write the plan ${file}: ${describeFsError(e)}`);
  }
}

/** The saved plan in `file`, refused when it was made against another service than `url`. */
export function readSavedPlan(file: string, url: string): PlanEntry[] {
  const text = readTextFile(file, 'the plan');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not a saved plan: it is not JSON`, {
      hint: 'make one with dlake plan --dir DIR --out FILE',
    });
  }
  const parsed = SavedPlanSchema.safeParse(value);
  if (!parsed.success) {
    throw new UsageError(`${file} is not a saved plan of this dlake`, {
      details: parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.map(String).join('.') || '(file)'}: ${i.message}`),
      hint: 'make one with dlake plan --dir DIR --out FILE',
    });
  }
  if (parsed.data.url.replace(/\/+$/, '') !== url.replace(/\/+$/, '')) {
    throw new UsageError(`${file} was made against ${parsed.data.url}, not ${url}`, {
      hint: 'apply it with the profile it was planned with, or plan again against this service',
    });
  }
  const entries = parsed.data.entries as unknown as PlanEntry[];
  checkNoSecret(entries);
  return entries;
}
