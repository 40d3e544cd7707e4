// Output of the SQL shell, as psql shows it: on a terminal, a result taller or wider than the screen goes through
// the pager of src/output/pager.ts (which gets the terminal's keyboard meanwhile), anything else is printed
// (docs/guide.md "The SQL shell").
import type { Context } from '../context.js';
import { needsPager, pagerFor, runPager } from '../output/pager.js';
import { withTerminalHandedOver } from './handover.js';
import type { KeyRouter } from './keys.js';

export async function pageOrPrint(ctx: Context, text: string, keys: KeyRouter): Promise<void> {
  const { stdout } = ctx.streams;
  const pager = pagerFor(ctx.env);
  const columns = stdout.isTTY ? stdout.columns : undefined;
  if (!pager || !columns || !needsPager(text, columns, stdout.rows)) {
    stdout.write(text);
    return;
  }
  const paged = await withTerminalHandedOver(ctx, keys, () => runPager(pager, text));
  if (!paged) stdout.write(text);
}
