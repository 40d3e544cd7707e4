// The terminal handed to another program the shell starts (the pager, the editor) while it runs: the shell
// stops reading keys, and Ctrl-C, which reaches dlake too (same process group), must not end the shell.
import type { Context } from '../context.js';
import type { KeyRouter } from './keys.js';

export async function withTerminalHandedOver<T>(
  ctx: Context,
  keys: KeyRouter,
  run: () => Promise<T>,
): Promise<T> {
  keys.release();
  const ignore = () => {};
  process.on('SIGINT', ignore);
  const wasInterruptible = ctx.interruptible;
  ctx.interruptible = true;
  try {
    return await run();
  } finally {
    process.off('SIGINT', ignore);
    ctx.interruptible = wasInterruptible;
    keys.reclaim();
  }
}
