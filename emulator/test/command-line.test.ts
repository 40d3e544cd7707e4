// The `dlake-emulator` command's start-up refusals: one line on stderr and exit 2, never a stack, and never a
// server that starts on something other than what was asked for; its --version and the samples it brings.

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEmulatorCommand, startEmulatorCommand } from './command.js';

const SAMPLES = join(import.meta.dirname, '../../test/fixtures/samples');

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

describe('dlake-emulator tells what it is', () => {
  it('--version (and -V): its version and the Node.js that runs it, exit 0', async () => {
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '../package.json'), 'utf8')) as {
      version: string;
    };
    const expected = `dlake-emulator ${version}\nNode.js ${process.version} on ${process.platform}-${process.arch}\n`;
    for (const flag of ['--version', '-V']) {
      expect(await runEmulatorCommand([flag])).toEqual({ code: 0, stdout: expected, stderr: '' });
    }
  });

  it('serves its own sample files as Samples unless told otherwise, and says so', async () => {
    const emu = await startEmulatorCommand(['--port', '0']);
    try {
      const shipped = /^Source Samples: the files in (.+)$/m.exec(emu.stdout())?.[1];
      expect(shipped).toBe(join(import.meta.dirname, '../dist/samples'));
      expect(readdirSync(shipped!).sort()).toEqual(readdirSync(SAMPLES).sort());
    } finally {
      await emu.stop();
    }
    const none = await startEmulatorCommand(['--port', '0', '--no-samples']);
    expect(none.stdout()).not.toContain('Source Samples');
    await none.stop();
    const both = await runEmulatorCommand(['--port', '0', '--no-samples', '--samples', dir]);
    expect([both.code, both.stderr.split('\n')[0]]).toEqual([
      2,
      'emulator: --samples and --no-samples exclude each other',
    ]);
  });
});
