// The `dlake-emulator` command's start-up refusals: one line on stderr and exit 2, never a stack, and never a
// server that starts on something other than what was asked for.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEmulatorCommand } from './command.js';

let dir: string;
let busy: Server;
let busyPort: number;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-emulator-cli-'));
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  busyPort = (busy.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => busy.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('dlake-emulator refuses to start', () => {
  it('on a port already in use: one line naming it, exit 2', async () => {
    const r = await runEmulatorCommand(['--port', String(busyPort)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `emulator: cannot listen on 127.0.0.1:${busyPort}: the port is already in use (another emulator?); choose another with --port (0 picks a free one)\n`,
    );
    expect(r.stdout).toBe('');
  });

  it('with a --samples folder that does not exist, or is a file', async () => {
    const missing = join(dir, 'no-such-folder');
    const r = await runEmulatorCommand(['--port', '0', '--samples', missing]);
    expect([r.code, r.stderr, r.stdout]).toEqual([
      2,
      `emulator: --samples "${missing}": no such folder\n`,
      '',
    ]);
    const file = join(dir, 'a-file.csv');
    writeFileSync(file, 'a\n1\n');
    const f = await runEmulatorCommand(['--port', '0', '--samples', file]);
    expect([f.code, f.stderr, f.stdout]).toEqual([2, `emulator: --samples "${file}": not a folder\n`, '']);
  });
});
