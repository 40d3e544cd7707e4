// One emulator and one config folder per test file, and a `dlake` runner wired to both.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Emulator, type EmulatorOptions, startEmulator } from 'dlake-emulator';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { type RunOptions, type RunResult, runDlake, tempConfigDir } from './dlake.js';
import { type InProcessOptions, runInProcess } from './in-process.js';

export const ADMIN = { name: 'admin', password: 'admin-pass-1' };
export const ANALYST = { name: 'analyst', password: 'analyst-pass-1' };
export const SERVICE_USER = { clientId: 'ci-client', clientSecret: 'ci-client-secret-1' };

export interface Fixture {
  emu: Emulator;
  configDir: string;
  /**
   * Runs dlake in this process (test/helpers/in-process.ts) with DLAKE_CONFIG_DIR set to this fixture's folder
   * (and DLAKE_URL unless `url: false`).
   */
  run(args: string[], opts?: InProcessOptions & { url?: boolean }): Promise<RunResult>;
  /** As `run`, but spawns the built binary: for what only a process shows (exit, signals, the bundle). */
  spawn(args: string[], opts?: RunOptions & { url?: boolean }): Promise<RunResult>;
  /**
   * Logs `user` (default: the admin) in to `profile` (default: the default profile): with the password, or on the
   * hosted edition, which has no password login, with a PAT of theirs.
   */
  login(user?: { name: string; password: string }, profile?: string): Promise<RunResult>;
  /** A PAT of `user` (default: the admin), valid an hour, as the hosted edition's console makes one. */
  pat(user?: string): string;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect the stored JSON freely
  readJson(file: 'config.json' | 'credentials.json'): Record<string, any>;
  close(): Promise<void>;
}

/**
 * Each of a job's four steps before it ends lasts 5 ms here rather than the emulator's 20: a test's query has
 * ended by the wait's second poll, 50 ms after it was submitted (src/api/jobs.ts), rather than its third at
 * 125 ms. A test that needs a job still running holds it with a sleep hint (emulator/src/jobs.ts).
 */
const JOB_STEP_MS = 5;

export async function startFixture(options: EmulatorOptions = {}): Promise<Fixture> {
  const emu = await startEmulator({ jobStepMs: JOB_STEP_MS, ...options });
  const cfg = tempConfigDir();
  const withEnv = <T extends RunOptions>(opts: T & { url?: boolean }): T => ({
    ...opts,
    env: {
      DLAKE_CONFIG_DIR: cfg.dir,
      ...(opts.url === false ? {} : { DLAKE_URL: emu.url }),
      ...opts.env,
    },
  });
  const fx: Fixture = {
    emu,
    configDir: cfg.dir,
    run: (args, opts = {}) => runInProcess(args, withEnv(opts)),
    spawn: (args, opts = {}) => runDlake(args, withEnv(opts)),
    login: (user = ADMIN, profile) => {
      const into = profile ? ['-p', profile] : [];
      return emu.cloud
        ? fx.run(
            ['--edition', 'cloud', '--project-id', emu.cloud.projectId, 'login', '--token-stdin', ...into],
            {
              input: `${fx.pat(user.name)}\n`,
            },
          )
        : fx.run(['login', '-u', user.name, '--password-stdin', ...into], { input: `${user.password}\n` });
    },
    pat: (user = ADMIN.name) => emu.state.issueToken(emu.state.userByName(user)!.id, 'pat', 3_600_000).token,
    readJson: (file) => JSON.parse(readFileSync(join(cfg.dir, file), 'utf8')),
    close: async () => {
      await emu.close();
      cfg.cleanup();
    },
  };
  return fx;
}

/** Asserts a failed run: exit code, exactly one `error:` line, and nothing on stdout. */
export function expectFailure(r: RunResult, code: number, message: RegExp | string): void {
  const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
  const ok =
    r.code === code &&
    errors.length === 1 &&
    (typeof message === 'string' ? errors[0]!.includes(message) : message.test(errors[0]!)) &&
    r.stdout === '';
  if (!ok) {
    throw new Error(
      `expected exit ${code} with one error line matching ${message}\n--- got exit ${r.code}\n--- stdout:\n${r.stdout}\n--- stderr:\n${r.stderr}`,
    );
  }
}

/**
 * The preamble of a test file (or describe block) that runs against one emulator: started before its tests
 * (logged in as the admin unless `login: false`), closed after them, its request log cleared before each test.
 * `options` may be made when the tests start (a key pair made for the emulator to trust). With `each`, every test
 * gets a fresh one, started before it and closed after it. Returns the fixture to use in the tests; its members
 * are there once the tests run.
 */
export function useFixture(
  options: EmulatorOptions | (() => Promise<EmulatorOptions>) = {},
  { login = true, each = false } = {},
): Fixture {
  let fx: Fixture | undefined;
  const [before, after] = each ? [beforeEach, afterEach] : [beforeAll, afterAll];
  before(async () => {
    fx = await startFixture(typeof options === 'function' ? await options() : options);
    if (login) expect((await fx.login()).code).toBe(0);
  });
  after(() => fx?.close());
  beforeEach(() => fx?.emu.log.clear());
  return new Proxy({} as Fixture, {
    get(_target, key) {
      if (!fx) throw new Error('the fixture is started before the tests (useFixture): used too early');
      const value = fx[key as keyof Fixture];
      return typeof value === 'function' ? value.bind(fx) : value;
    },
  });
}

/** A logged-in fixture of a community-edition server for the tests of one describe block, handed to `set`. */
export function useCommunityFixture(set: (fx: Fixture) => void): void {
  let fx: Fixture | undefined;
  beforeAll(async () => {
    fx = await startFixture({ edition: 'community' });
    expect((await fx.login()).code).toBe(0);
    set(fx);
  });
  afterAll(() => fx?.close());
}
