// `dlake reflection refresh ID [--wait] [--timeout D]`: asks for a refresh (Enterprise); --wait follows it
// until the reflection can accelerate (0), has failed (6) or the timeout passes (7), with a spinner on a TTY.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { parseDuration } from '../../util/units.js';
import { examples, send } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { printReflection } from './shared.js';

const declaration = (reflection: Command) =>
  reflection
    .command('refresh')
    .description('Refresh a reflection now; --wait until it can accelerate (exit 6 if it fails)')
    .argument('<id>', 'reflection id')
    .option('--wait', 'wait until the reflection can accelerate or has failed')
    .option(
      '--timeout <duration>',
      'with --wait: stop waiting after this long, e.g. 10m (exit 7; the refresh goes on)',
    )
    .option('--dry-run', 'print the request instead of sending it')
    .addHelpText(
      'after',
      examples('dlake reflection refresh 3f6c…', 'dlake reflection refresh 3f6c… --wait --timeout 30m'),
    );

export const register = defineCommand(declaration, refresh);

async function refresh(ctx: Context, id: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  const api = await import('../../api/reflections.js');
  // The root command owns --timeout (the per-request timeout), so its value arrives there, as for `job wait`.
  const timeoutMs = ctx.opts.timeout ? parseDuration(ctx.opts.timeout) : undefined;
  const client = await ctx.client();
  await send(
    ctx,
    { request: api.refreshReflectionRequest(id), send: (c) => api.refreshReflection(c, id) },
    { dryRun: opts.dryRun },
  );
  if (opts.dryRun) return;
  if (!opts.wait) {
    ctx.ui.notice(`Refresh of reflection ${id} requested; follow it with \`dlake reflection get ${id}\`.`);
    return;
  }
  ctx.interruptible = true;
  const started = Date.now();
  let status = 'REFRESHING';
  const line = () => `${status}  ${((Date.now() - started) / 1000).toFixed(1)}s  reflection ${id}`;
  const spinner = await ctx.ui.spinner(line());
  const ticker = ctx.ui.motion ? setInterval(() => spinner?.update(line()), 200) : undefined;
  try {
    const done = await api.waitForReflection(client, id, {
      timeoutMs,
      signal: ctx.interrupt.signal,
      onPoll: (r) => {
        status = r.status?.combinedStatus ?? status;
        spinner?.update(line());
      },
    });
    clearInterval(ticker);
    spinner?.stop();
    await printReflection(ctx, done);
    ctx.ui.notice(`Reflection ${id} can accelerate (${done.status?.combinedStatus}).`);
  } finally {
    clearInterval(ticker);
    spinner?.stop();
    ctx.interruptible = false;
  }
}
