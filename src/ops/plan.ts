// Definitions as code as data: the plan for a folder of definition files against the service in force
// (src/ascode/read-plan.ts), with what was read to decide its deletes. `plan`, `apply` and the agents'
// `plan_definitions` read it.
import type { PlanEntry } from '../ascode/diff.js';
import type { Context } from '../context.js';

/**
 * Reads at once for pull and plan: a read is cheap for the service, and a plan of 10,000 entities is bound by
 * round trips (docs/benchmarks.md, "Definitions as code").
 */
export const READ_CONCURRENCY = 16;

/** What shapes a plan: the options of `plan` (and `apply`). */
interface PlanOptions {
  dir: string;
  prune?: true;
  map?: string;
  refreshSecrets?: true;
}

/**
 * The plan for the files in `dir`, and, when it deletes, the line that says what was read to decide it
 * (`Read 42 definition files in lake (3 folders).`): what no file names is only what these files do not name.
 * Its warnings (a --map name no file uses) go to the context's UI.
 */
export async function planFor(
  ctx: Context,
  refs: readonly string[],
  opts: PlanOptions,
  signal = ctx.interrupt.signal,
): Promise<{ entries: PlanEntry[]; read?: string }> {
  const { readPlan } = await import('../ascode/read-plan.js');
  const { describeRead, emptyRead } = await import('../ascode/folder.js');
  const read = emptyRead();
  const where = {
    client: async () => (await ctx.client()).withSignal(signal),
    root: () => ctx.root(),
    env: ctx.env,
    warn: (line: string) => ctx.ui.warn(line),
  };
  const entries = await readPlan(where, refs, { ...opts, concurrency: READ_CONCURRENCY, read });
  const deletes = entries.some((e) => e.action === 'delete' && !e.error);
  return { entries, read: deletes ? describeRead(opts.dir, read) : undefined };
}
