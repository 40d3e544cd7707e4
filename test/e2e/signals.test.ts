// Ctrl-C: at a prompt in a real terminal, and during a request. Each ends dlake with exit
// code 130 and `error: interrupted`, leaves the terminal as it found it, and stores nothing.
// (Ctrl-C during a job wait or an export is covered by the tests of those commands.)
import { spawn } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, startDlake } from '../helpers/dlake.js';
import { expectFailure, useFixture } from '../helpers/fixture.js';
import { until } from '../helpers/until.js';

const fx = useFixture({}, { login: false });
beforeEach(() => {
  for (const f of readdirSync(fx.configDir)) rmSync(join(fx.configDir, f), { recursive: true, force: true });
  fx.emu.faults.clear();
});

// Runs a command on a new pseudo-terminal (its controlling terminal, so Ctrl-C works as at a keyboard),
// waits for `prompt`, types `keys` (one chunk at a time), and reports the exit code, everything the terminal showed, and the
// terminal's modes before and after (read on a slave descriptor kept open, as `stty -a` would).
// python3's pty module: on every Linux and macOS machine, no extra package for CI.
const PTY_DRIVER = `
import fcntl, json, os, select, sys, termios, time
prompt, keys, cmd = sys.argv[1].encode(), [k.encode() for k in json.loads(sys.argv[2])], sys.argv[3:]
master, slave = os.openpty()
before = termios.tcgetattr(slave)
pid = os.fork()
if pid == 0:
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    os.close(master)
    os.execvp(cmd[0], cmd)
out, sent, status, next_key_at = b'', 0, None, 0
deadline = time.time() + 30
while time.time() < deadline:
    ready, _, _ = select.select([master], [], [], 0.05)
    if ready:
        out += os.read(master, 65536)
    # The keys go in one chunk at a time, a moment apart, as typed: an echo has time to show.
    if sent < len(keys) and prompt in out and time.time() >= next_key_at:
        os.write(master, keys[sent])
        sent += 1
        next_key_at = time.time() + 0.2
    if status is None:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = os.waitstatus_to_exitcode(st)
    elif not ready:
        break
if status is None:
    os.kill(pid, 9)
after = termios.tcgetattr(slave)
flags = after[3]
print(json.dumps({
    'code': status,
    'sent': sent == len(keys),
    'output': out.decode('utf-8', 'replace'),
    'restored': before == after,
    'echo': bool(flags & termios.ECHO),
    'icanon': bool(flags & termios.ICANON),
    'isig': bool(flags & termios.ISIG),
}))
`;

interface PtyRun {
  code: number | null;
  sent: boolean;
  output: string;
  restored: boolean;
  echo: boolean;
  icanon: boolean;
  isig: boolean;
}

function runInPty(args: string[], prompt: string, keys: string[]): Promise<PtyRun> {
  return new Promise((resolve, reject) => {
    const env = cleanEnv({ DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url, TERM: 'xterm-256color' });
    const py = spawn(
      'python3',
      ['-c', PTY_DRIVER, prompt, JSON.stringify(keys), process.execPath, BIN, ...args],
      { env },
    );
    let stdout = '';
    let stderr = '';
    py.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    py.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    py.on('error', reject);
    py.on('close', (code) => {
      if (code !== 0) return reject(new Error(`the pty driver failed (${code}):\n${stderr}`));
      resolve(JSON.parse(stdout) as PtyRun);
    });
  });
}

function expectInterruptedAndRestored(r: PtyRun): void {
  const report = JSON.stringify(r, null, 2);
  expect(r.sent, report).toBe(true);
  expect(r.code, report).toBe(130);
  const errors = r.output.split(/\r?\n/).filter((l) => l.startsWith('error:'));
  expect(errors, report).toEqual(['error: interrupted']);
  // Echo, line editing and Ctrl-C handling back on: the terminal modes are exactly as before.
  expect({ restored: r.restored, echo: r.echo, icanon: r.icanon, isig: r.isig }, report).toEqual({
    restored: true,
    echo: true,
    icanon: true,
    isig: true,
  });
  // A cursor hidden (by a spinner, say) is shown again afterwards.
  const lastHide = r.output.lastIndexOf('\u001b[?25l');
  expect(lastHide === -1 || r.output.lastIndexOf('\u001b[?25h') > lastHide, report).toBe(true);
}

function expectNothingStored(): void {
  // The code cache (cache/, dlake's own compiled code) is not something of the user's.
  expect(readdirSync(fx.configDir).filter((f) => f !== 'cache')).toEqual([]);
  expect(fx.emu.log.find('POST', '/apiv2/login')).toEqual([]);
}

describe('Ctrl-C at a prompt', () => {
  it('at the hidden password prompt: exit 130, the typed characters never shown, terminal restored', async () => {
    const r = await runInPty(['login', '-u', 'admin'], 'Password for admin: ', ['hunter2', '\u0003']);
    expectInterruptedAndRestored(r);
    expect(r.output).toContain('Password for admin: ');
    expect(r.output).not.toContain('hunter2');
    expectNothingStored();
  });

  it('at the user name prompt: exit 130, terminal restored', async () => {
    const r = await runInPty(['login'], 'User name: ', ['adm', '\u0003']);
    expectInterruptedAndRestored(r);
    expectNothingStored();
  });
});

describe('Ctrl-C during a request', () => {
  it('ends at once with 130 and `error: interrupted`, without waiting for the answer', async () => {
    expect((await fx.login()).code).toBe(0);
    fx.emu.fault({ kind: 'latency', path: '/api/v3/catalog', latencyMs: 5000 });
    const child = startDlake(['api', 'GET', '/api/v3/catalog'], {
      env: { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url },
      killAfterMs: 30_000,
    });
    // The emulator logs a request when it arrives: once it is there, dlake is waiting for the answer.
    await until(() => fx.emu.log.find('GET', '/api/v3/catalog').length > 0, 'the request arrives');
    child.interrupt();
    const r = await child.done;
    expectFailure(r, 130, 'error: interrupted');
    // It did not wait for the (5 s late) answer, and did not retry.
    expect(fx.emu.log.find('GET', '/api/v3/catalog').map((e) => e.status)).toEqual([0]);
  });
});
