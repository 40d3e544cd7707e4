// The tolerance shared by the zod schemas of every resource of the service, which live by API area in
// api/schemas/ (each area's built when a command first loads it, not all at start: docs/benchmarks.md). They
// follow one policy, written down in docs/api-facts.md
// ("Response schemas: the tolerance policy"): validate only what dlake uses; a field the spec does not promise
// in every answer is optional; unknown fields pass through (every object is loose); and the type variants real
// servers send are normalised here, by the helpers below, never in a command. `-o json` prints what the
// service sent, not these parsed objects (see util/received.ts). Types are inferred, never written twice.
import * as z from 'zod/mini';
import '../util/zod.js';

export { CPU_TIERS } from '../constants.js';

// ── Tolerance: the one place where type variants are normalised ─────────────────────────────────────

/** Ids, tags, names of versions, ports: strings in the spec, numbers on some servers (queue tag `0`). */
export const text = z.pipe(z.union([z.string(), z.number()]), z.transform(String));

/** A version that is sent back on the next write: kept in the type the service used, compared as text. */
export const echoedVersion = z.union([z.string(), z.number()]);

/** Times: ISO 8601 strings in the spec, epoch milliseconds on some servers; always an ISO string here. */
export const time = z.pipe(
  z.union([z.string(), z.number()]),
  z.transform((v) => {
    if (typeof v === 'string') return v;
    const d = new Date(v);
    return Number.isNaN(d.getTime()) ? String(v) : d.toISOString();
  }),
);

/** Epoch milliseconds (login `expires`): a number in the spec; an ISO string is turned into one. */
export const epochMs = z.pipe(
  z.union([z.number(), z.string()]),
  z.transform((v, ctx) => {
    const ms = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : Date.parse(v);
    if (Number.isNaN(ms)) {
      ctx.issues.push({
        code: 'custom',
        message: 'expected epoch milliseconds or an ISO 8601 time',
        input: v,
      });
      return z.NEVER;
    }
    return ms;
  }),
);

/** Counts: numbers, or numbers written as strings. */
export const count = z.pipe(z.union([z.number(), z.string().check(z.regex(/^\d+$/))]), z.transform(Number));

/**
 * A field the spec does not promise in every answer: it may be missing, and `null` (which servers send where
 * the spec shows a value) counts as missing.
 */
export function optional<T extends z.ZodMiniType>(schema: T) {
  return z.optional(
    z.pipe(
      z.nullish(schema),
      z.transform((v) => v ?? undefined),
    ),
  );
}

/** A column's type: `{name: "VARCHAR", …}` in the spec, a bare `"VARCHAR"` on some servers. */
const columnType = z.union([
  z.pipe(
    z.string(),
    z.transform((name) => ({ name })),
  ),
  z.looseObject({ name: z.string() }),
]);

/** A column of a dataset or of a job's results. */
export const FieldSchemaSchema = z.looseObject({ name: z.string(), type: columnType });
