// zod schemas of jobs (the tolerance policy and its helpers: api/schemas.ts).
import * as z from 'zod/mini';
import '../../util/zod.js';
import { count, optional, text, time } from '../schemas.js';
import { JOB_ID } from '../url-segment.js';

// ── Jobs ────────────────────────────────────────────────────────────────────────────────────────────

/**
 * A job id as the service gives one (`JOB_ID`). Anything else (megabytes of text, `..`, a slash, a control
 * character) breaks the contract (exit 7) before it reaches a URL, a notice or a file.
 */
export const SubmittedJobSchema = z.looseObject({
  id: z.pipe(text, z.string().check(z.regex(JOB_ID, 'not a job id'))),
});

const ReflectionRelationshipSchema = z.looseObject({
  reflectionId: text,
  datasetId: optional(text),
  relationship: z.string(),
});

export const JobStatusSchema = z.looseObject({
  /**
   * Any state's name: real servers report more states than the spec lists (docs/api-facts.md §4.2), each a word
   * of capitals and underscores. Anything else is no state at all, and a wait on it would never end.
   */
  jobState: z.string().check(z.regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'not a job state')),
  queryType: optional(z.string()),
  startedAt: optional(time),
  endedAt: optional(time),
  // A count of rows below 0 breaks the contract (exit 7), whatever a later page would say.
  rowCount: optional(z.pipe(count, z.number().check(z.nonnegative()))),
  acceleration: optional(
    z.looseObject({ reflectionRelationships: optional(z.array(ReflectionRelationshipSchema)) }),
  ),
  errorMessage: optional(z.string()),
  queueName: optional(z.string()),
  queueId: optional(text),
  resourceSchedulingStartedAt: optional(time),
  resourceSchedulingEndedAt: optional(time),
  cancellationReason: optional(z.string()),
});
export type JobStatus = z.infer<typeof JobStatusSchema>;
