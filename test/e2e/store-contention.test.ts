// The config store under contention: many dlake processes writing at once lose nothing,
// a process killed at any moment (mid-write included) leaves each file either as it was or fully written,
// a lock held by a live process is respected, and a lock left behind by a killed one is taken over.
import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  watch,
} from 'node:fs';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { beforeEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, type RunResult } from '../helpers/dlake.js';
import { ADMIN, SERVICE_USER, useFixture } from '../helpers/fixture.js';

const fx = useFixture({}, { login: false });
beforeEach(() => {
  for (const f of readdirSync(fx.configDir)) rmSync(join(fx.configDir, f), { recursive: true, force: true });
});

const lockPath = () => join(fx.configDir, '.lock');
// biome-ignore lint/suspicious/noExplicitAny: tests inspect the stored JSON freely
type Json = Record<string, any>;

/** Both files, parsed; a file that does not parse fails the test here, with its text. */
function readStore(): { config: Json; creds: Json } {
  const parse = (file: string): Json => {
    const path = join(fx.configDir, file);
    if (!existsSync(path)) return {};
    const text = readFileSync(path, 'utf8');
    try {
      return JSON.parse(text);
    } catch {
      throw new Error(`${file} is not valid JSON:\n${text}`);
    }
  };
  return { config: parse('config.json'), creds: parse('credentials.json') };
}

function without(obj: Json | undefined, key: string): Json {
  const { [key]: _gone, ...rest } = obj ?? {};
  return rest;
}

const exchangeArgs = (profile: string) => [
  'token',
  'exchange',
  'client-credentials',
  '-p',
  profile,
  '--client-id',
  SERVICE_USER.clientId,
  '--client-secret-stdin',
  '--print',
];

/** Spawns dlake on the fixture's folder and emulator, with the child at hand (to kill it). */
function spawnDlake(args: string[], input = ''): { child: ChildProcess; done: Promise<RunResult> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: cleanEnv({ DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  child.stdin!.on('error', () => {});
  child.stdin!.end(input);
  const safety = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const done = new Promise<RunResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(safety);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, done };
}

function expectOk(r: RunResult, what: string): void {
  expect(r.code, `${what}: exit ${r.code} (${r.signal})\n${r.stderr}`).toBe(0);
}

function expectStoreFilesPrivate(): void {
  for (const f of readdirSync(fx.configDir)) {
    const st = statSync(join(fx.configDir, f));
    if (st.isFile()) expect({ f, mode: (st.mode & 0o777).toString(8) }).toEqual({ f, mode: '600' });
  }
}

describe('20 concurrent dlake processes', () => {
  it('logging in, exchanging tokens, setting and switching profiles: valid JSON, no write lost', async () => {
    for (const name of ['b0', 'b1', 'b2', 'b3']) {
      expectOk(await fx.run(['profile', 'set', name, '--url', `http://${name}.example`]), name);
    }
    expectOk(await fx.run(['profile', 'use', 'b0']), 'use b0');

    const logins = Array.from({ length: 7 }, (_, i) => `u${i}`);
    const exchanges = Array.from({ length: 5 }, (_, i) => `c${i}`);
    const runs: Record<string, Promise<RunResult>> = {};
    for (const p of logins) runs[`login ${p}`] = fx.login(ADMIN, p);
    for (const p of exchanges) {
      runs[`exchange ${p}`] = fx.spawn(exchangeArgs(p), { input: `${SERVICE_USER.clientSecret}\n` });
    }
    runs['set s0'] = fx.spawn(['profile', 'set', 's0', '--url', 'http://s0.example']);
    runs['set s1'] = fx.spawn(['profile', 'set', 's1', '--url', 'http://s1.example']);
    runs['set b2 -o json'] = fx.spawn(['profile', 'set', 'b2', '-o', 'json']);
    runs['set b3 --auth-url'] = fx.spawn(['profile', 'set', 'b3', '--auth-url', 'http://idp.example']);
    runs['use b1'] = fx.spawn(['profile', 'use', 'b1']);
    runs['use b0'] = fx.spawn(['profile', 'use', 'b0']);
    runs['use b1 again'] = fx.spawn(['profile', 'use', 'b1']);
    runs['use b0 again'] = fx.spawn(['profile', 'use', 'b0']);
    expect(Object.keys(runs)).toHaveLength(20);

    const results = Object.fromEntries(
      await Promise.all(Object.entries(runs).map(async ([k, p]) => [k, await p] as const)),
    );
    for (const [what, r] of Object.entries(results)) expectOk(r, what);

    const { config, creds } = readStore();
    expect(Object.keys(config.profiles).sort()).toEqual(
      ['b0', 'b1', 'b2', 'b3', 's0', 's1', ...logins, ...exchanges].sort(),
    );
    expect(Object.keys(creds.tokens).sort()).toEqual([...logins, ...exchanges].sort());
    expect(['b0', 'b1']).toContain(config.currentProfile);
    expect(config.profiles.b2).toEqual({ url: 'http://b2.example', output: 'json' });
    expect(config.profiles.b3).toEqual({ url: 'http://b3.example', authUrl: 'http://idp.example' });
    expect(config.profiles.s0).toEqual({ url: 'http://s0.example' });
    for (const p of logins) {
      expect(config.profiles[p]).toMatchObject({
        url: fx.emu.url,
        authMethod: 'password',
        username: 'admin',
      });
      expect(creds.tokens[p]).toMatchObject({ kind: 'session', obtainedVia: 'password' });
    }
    for (const p of exchanges) {
      expect(config.profiles[p]).toMatchObject({ authMethod: 'client-credentials', clientId: 'ci-client' });
      // Each process stored the very token it was issued (and printed), not another process's.
      expect(creds.tokens[p]).toMatchObject({
        kind: 'bearer',
        obtainedVia: 'client-credentials',
        token: results[`exchange ${p}`]!.stdout.trim(),
      });
    }
    expect(
      new Set(Object.values(creds.tokens as Record<string, { token: string }>).map((t) => t.token)).size,
    ).toBe(12);
    expect(existsSync(lockPath())).toBe(false);
    expectStoreFilesPrivate();
  });
});

describe('a process killed at any moment', () => {
  it('leaves each file as it was or fully written, never corrupt, never losing earlier writes', async () => {
    expectOk(await fx.login(ADMIN, 'base'), 'login base');

    // Spread the kills over a whole run: measure how long an unkilled run of each kind takes.
    const commandFor = (i: number) =>
      i % 3 === 0
        ? { args: ['login', '-u', ADMIN.name, '--password-stdin', '-p', `k${i}`], input: ADMIN.password }
        : { args: ['profile', 'set', `k${i}`, '--url', `http://k${i}.example`], input: '' };
    const duration = async (i: number) => {
      const t0 = performance.now();
      const { done } = spawnDlake(commandFor(i).args, commandFor(i).input);
      expectOk(await done, `calibration ${i}`);
      return performance.now() - t0;
    };
    const spans = [await duration(0), await duration(1)];
    const tally = { finished: 0, killedBefore: 0, killedAfterWrite: 0, orphanLocks: 0 };

    // The command (i % 3) and the kill point (i % 4) repeat every 12 runs: 12 runs try each command at each
    // kill point once (the random points differ from run to run of the suite).
    for (let i = 3; i < 15; i++) {
      const before = readStore();
      const name = `k${i}`;
      const { args, input } = commandFor(i);
      const { child, done } = spawnDlake(args, input);
      // Kills at a random moment of the run, the moment the store lock appears (inside the
      // read-modify-write), or the moment the store's new file appears (between its write and rename).
      let watcher: ReturnType<typeof watch> | undefined;
      const mode = i % 4;
      if (mode === 0 || mode === 2) {
        setTimeout(() => child.kill('SIGKILL'), Math.random() * 1.2 * spans[i % 3 === 0 ? 0 : 1]!);
      } else {
        const trigger =
          mode === 1 ? (f: string) => f === '.lock' : (f: string) => /\.json\.\d+\.tmp$/.test(f);
        watcher = watch(fx.configDir, (_event, file) => {
          if (file && trigger(file)) child.kill('SIGKILL');
        });
      }
      const r = await done;
      watcher?.close();

      const after = readStore();
      const report = `iteration ${i} (${args.join(' ')}): exit ${r.code} (${r.signal})\n${r.stderr}`;
      // Everything else is exactly as before; the profile of this run is there or not, whole.
      expect(without(after.config.profiles, name), report).toEqual(before.config.profiles ?? {});
      expect(after.config.currentProfile, report).toBe(before.config.currentProfile);
      expect(without(after.creds.tokens, name), report).toEqual(before.creds.tokens ?? {});
      const written = Boolean(after.config.profiles?.[name]);
      if (r.signal === null) {
        expectOk(r, report);
        expect(written, report).toBe(true);
        tally.finished++;
      } else {
        expect(r.signal, report).toBe('SIGKILL');
        if (written) tally.killedAfterWrite++;
        else tally.killedBefore++;
      }
      if (after.config.profiles?.[name]) {
        expect(after.config.profiles[name].url, report).toBe(
          i % 3 === 0 ? fx.emu.url : `http://${name}.example`,
        );
      }
      if (after.creds.tokens?.[name]) expect(after.creds.tokens[name].kind, report).toBe('session');
      if (existsSync(lockPath())) {
        // Killed while holding the lock. The next dlake would wait for it to go stale (10 s, see the
        // test below); age it instead so the loop stays fast, and let the next run take it over.
        expect(r.signal, report).toBe('SIGKILL');
        tally.orphanLocks++;
        const old = new Date(Date.now() - 60_000);
        utimesSync(lockPath(), old, old);
      }
    }

    // After all that, a normal run still works and takes over whatever lock was left.
    expectOk(await fx.run(['profile', 'set', 'final', '--url', 'http://final.example']), 'final');
    const { config, creds } = readStore();
    expect(config.profiles.final).toEqual({ url: 'http://final.example' });
    expect(config.profiles.base.url).toBe(fx.emu.url);
    expect(creds.tokens.base.kind).toBe('session');
    expect(existsSync(lockPath())).toBe(false);
    // The new file of a write killed before its rename is removed by the next write: none is left.
    const files = readdirSync(fx.configDir).filter((f) => f !== 'cache'); // dlake's compiled code
    expect(files.sort()).toEqual(['config.json', 'credentials.json']);
    expectStoreFilesPrivate();
    console.log(`kills: ${JSON.stringify(tally)}`);
  });
});

describe('the store lock', () => {
  it('held by a live process: dlake waits for it and writes after it is released', async () => {
    expectOk(await fx.run(['profile', 'set', 'base', '--url', 'http://base.example']), 'set base');
    const release = await lockfile.lock(fx.configDir, { lockfilePath: lockPath(), stale: 10_000 });
    const { done } = spawnDlake(['profile', 'set', 'waiting', '--url', 'http://waiting.example']);
    let exited = false;
    void done.then(() => {
      exited = true;
    });
    // Give it ample time to start and reach the lock (not a timing assertion: a correct dlake waits however
    // long the lock is held).
    await new Promise((r) => setTimeout(r, 1500));
    expect(exited).toBe(false);
    expect(readStore().config.profiles.waiting).toBeUndefined();
    await release();
    expectOk(await done, 'waiting');
    expect(readStore().config.profiles.waiting).toEqual({ url: 'http://waiting.example' });
  });

  it('left behind by a killed process: the next dlake takes it over once stale (10 s) and succeeds', async () => {
    expectOk(await fx.run(['profile', 'set', 'base', '--url', 'http://base.example']), 'set base');
    // Exactly what a process SIGKILLed inside the read-modify-write leaves: the lock directory, made 9 s ago
    // (rather than waiting the whole 10 s): dlake must wait the last second out, then take the lock over.
    mkdirSync(lockPath());
    const madeAgo = new Date(Date.now() - 9_000);
    utimesSync(lockPath(), madeAgo, madeAgo);
    const r = await fx.run(['profile', 'set', 'after', '--url', 'http://after.example'], {
      killAfterMs: 40_000,
    });
    expectOk(r, 'after');
    expect(readStore().config.profiles).toEqual({
      base: { url: 'http://base.example' },
      after: { url: 'http://after.example' },
    });
    expect(existsSync(lockPath())).toBe(false);
  });
});
