// Reflections as data: the summary the service keeps of each (name, dataset, status, how often chosen), and
// what it tells of a few ids. `reflection summary`, `job get`, `job why` and the agents'
// `reflection_status` read them.
import type { ReflectionSummary, SummaryQuery } from '../api/reflections.js';
import type { Context } from '../context.js';
import { DlakeError, InterruptedError } from '../errors.js';

/** Every summary the query selects, page after page, up to its limit. */
export async function reflectionSummaryList(
  ctx: Context,
  q: SummaryQuery,
  signal = ctx.interrupt.signal,
): Promise<ReflectionSummary[]> {
  const { reflectionSummaries } = await import('../api/reflections.js');
  const items: ReflectionSummary[] = [];
  for await (const s of reflectionSummaries((await ctx.client()).withSignal(signal), q)) items.push(s);
  return items;
}

/** What the reflection summary tells of a reflection: its name, type and the dataset it accelerates. */
interface ReflectionInfo {
  name?: string;
  type?: string;
  datasetPath?: string[];
}

/**
 * The reflections of `ids`, from one reflection-summary request. Best effort: a service without the summary
 * (or a user not allowed to read it) leaves them unnamed.
 */
export async function reflectionInfo(
  ctx: Context,
  ids: readonly string[],
  signal = ctx.interrupt.signal,
): Promise<Map<string, ReflectionInfo>> {
  const found = new Map<string, ReflectionInfo>();
  try {
    const { reflectionSummaries } = await import('../api/reflections.js');
    const filter = { reflectionIds: [...new Set(ids)] };
    for await (const s of reflectionSummaries((await ctx.client()).withSignal(signal), { filter })) {
      found.set(s.id, { name: s.name, type: s.reflectionType, datasetPath: s.datasetPath });
    }
  } catch (e) {
    if (!(e instanceof DlakeError) || e instanceof InterruptedError) throw e;
  }
  return found;
}
