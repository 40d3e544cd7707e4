// The README's Quick tour, run as written right after the README's first command (`npm install && npm run demo`):
// its documented setup (`npm link`, the emulator with the sample files, DLAKE_URL), then every command of the
// tour in order, through bash, with the PATH a new user has: whatever `dlake` the tour runs is there because
// the tour put it there. A tour that stops working fails here, not in front of a newcomer.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { type Emulator, startEmulator } from 'dlake-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, tempConfigDir } from '../helpers/dlake.js';
import { REPO } from '../helpers/package.js';

const README = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');
const SAMPLES = resolve(import.meta.dirname, '../fixtures/samples');

/** The code blocks of the Quick tour section: the setup block, then the tour. */
function tourBlocks(): string[][] {
  const section = README.split(/^## Quick tour$/m)[1]?.split(/^## /m)[0] ?? '';
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
    m[1]!
      .split('\n')
      .map((line) => line.replace(/\s+#\s.*$/, '').trim())
      .filter(Boolean),
  );
}

/**
 * The PATH of a user's shell: the test runner's, without what `npm run` put in front of it (node_modules/.bin
 * folders, npm's node-gyp shim). npm's global folder is moved to `prefix` (so that `npm link` leaves this
 * machine alone), and its bin folder stands where a user's does: with the node that runs npm.
 */
function userPath(prefix: string): string {
  const entries = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((p) => p && !/[\\/]node_modules[\\/]/.test(p));
  const nodeBin = dirname(process.execPath);
  const at = entries.indexOf(nodeBin);
  entries.splice(Math.max(at, 0), 0, join(prefix, 'bin'));
  return entries.join(delimiter);
}

function bash(line: string, env: Record<string, string | undefined>, cwd: string, input = '') {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn('bash', ['-c', line], { env: cleanEnv(env), cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
    // A command that reads no input may exit before its stdin is written: that EPIPE is no failure of the tour.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

let emu: Emulator;
let cfg: ReturnType<typeof tempConfigDir>;
let prefix: string;
let env: Record<string, string | undefined>;
beforeAll(async () => {
  cfg = tempConfigDir();
  prefix = mkdtempSync(join(tmpdir(), 'dlake-tour-prefix-'));
  // The setup block, done in-process: the emulator with the samples, and DLAKE_URL pointing at it.
  emu = await startEmulator({ samplesDir: SAMPLES });
});
afterAll(async () => {
  await emu.close();
  cfg.cleanup();
  rmSync(prefix, { recursive: true, force: true });
});

describe('README Quick tour', () => {
  it('documents its setup: dlake on the PATH, the emulator with the sample files, and DLAKE_URL', () => {
    const [setup] = tourBlocks();
    expect(setup).toEqual([
      'npm link',
      'npm run emulator -- --samples test/fixtures/samples &',
      'export DLAKE_URL=http://127.0.0.1:9047',
    ]);
  });

  it("puts dlake on a new user's PATH with the setup's npm link, in the clone", async () => {
    env = {
      // None of the npm_* variables `npm test` sets for its children.
      ...Object.fromEntries(
        Object.keys(process.env)
          .filter((k) => /^npm_/i.test(k))
          .map((k) => [k, undefined]),
      ),
      PATH: userPath(prefix),
      npm_config_prefix: prefix,
      npm_config_update_notifier: 'false',
      DLAKE_URL: emu.url,
      DLAKE_CONFIG_DIR: cfg.dir,
    };
    // The setup's first line as written; offline and without the audit, which would ask the registry.
    const link = await bash(`${tourBlocks()[0]![0]} --offline --no-audit --no-fund`, env, REPO);
    expect(link.code, link.stderr).toBe(0);
    expect(link.stderr).not.toMatch(/warn/i);
    const found = await bash('command -v dlake', env, cfg.dir);
    expect(found.stdout.trim()).toBe(join(prefix, 'bin', 'dlake'));
  }, 120_000);

  it('runs every command of the tour, in order, against the emulator', async () => {
    const tour = tourBlocks()[1] ?? [];
    expect(tour.length).toBeGreaterThan(5);
    expect(env, 'the npm link step ran').toBeDefined();
    const outputs: string[] = [];
    for (const line of tour) {
      // The password prompt needs a terminal; here the password comes the way scripts give it.
      const prompts = /^dlake login\b/.test(line) && !line.includes('-stdin');
      const r = await bash(
        prompts ? `${line} --password-stdin` : line,
        env,
        cfg.dir,
        prompts ? 'admin-pass-1\n' : '',
      );
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
      expect(r.stderr, line).not.toMatch(/^error:/m);
      outputs.push(r.stdout);
    }
    // The SQL line printed the sample rows' regions, and the export wrote its file.
    expect(outputs.join('\n')).toMatch(/North/);
    expect(existsSync(resolve(cfg.dir, 'big.csv'))).toBe(true);
    // Nine commands in a row, each a process: more than the default per-test limit on a loaded machine.
  }, 240_000);
});
