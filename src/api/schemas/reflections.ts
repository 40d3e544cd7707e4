// zod schemas of the reflection summary (the tolerance policy and its helpers: api/schemas.ts).
import * as z from 'zod/mini';
import '../../util/zod.js';
import { optional, text } from '../schemas.js';

const ReflectionSummarySchema = z.looseObject({
  id: text,
  name: optional(z.string()),
  reflectionType: optional(z.string()),
  datasetPath: optional(z.array(z.string())),
  isEnabled: optional(z.boolean()),
  status: optional(z.looseObject({})),
});
export const ReflectionSummaryPageSchema = z.looseObject({
  data: z.array(ReflectionSummarySchema),
  nextPageToken: optional(z.string()),
});
