// The [y/N] question driven as a terminal would: y confirms; Enter, Ctrl-D (end of input) do not; Ctrl-C
// interrupts.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import { confirm, readLine } from '../../src/output/prompt.js';
import type { Streams } from '../../src/output/ui.js';

function terminal(): { streams: Streams; type: (keys: string) => void; shown: () => string } {
  const stdin = new PassThrough();
  const stderr = new PassThrough();
  let shown = '';
  stderr.on('data', (c: Buffer) => {
    shown += c.toString();
  });
  return {
    streams: {
      stdin: stdin as unknown as NodeJS.ReadStream,
      stdout: new PassThrough() as unknown as NodeJS.WriteStream,
      stderr: stderr as unknown as NodeJS.WriteStream,
    },
    type: (keys) => setImmediate(() => stdin.write(keys)),
    shown: () => shown,
  };
}

describe('confirm', () => {
  it('y or yes confirms, and the question reads like the other prompts', async () => {
    const t = terminal();
    t.type('yes\r');
    expect(await confirm(t.streams, 'delete queue "etl"?')).toBe(true);
    expect(t.shown()).toContain('Delete queue "etl"? [y/N] ');
  });

  it('Enter is no', async () => {
    const t = terminal();
    t.type('\r');
    expect(await confirm(t.streams, 'delete it?')).toBe(false);
  });

  it('Ctrl-D is "not confirmed", not an interruption', async () => {
    const t = terminal();
    t.type('\u0004');
    expect(await confirm(t.streams, 'delete it?')).toBe(false);
    const ended = terminal();
    setImmediate(() => (ended.streams.stdin as unknown as PassThrough).end());
    expect(await readLine(ended.streams, 'User name: ')).toBeUndefined();
  });

  it('Ctrl-C interrupts', async () => {
    const t = terminal();
    t.type('\u0003');
    await expect(confirm(t.streams, 'delete it?')).rejects.toBeInstanceOf(InterruptedError);
  });
});
