// The README's Quick tour, run as written: its documented setup (the emulator with the sample files, DLAKE_URL),
// then every command of the tour in order, through bash, against the built binary. A tour that stops working
// against the emulator fails here, not in front of a newcomer.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Emulator, startEmulator } from 'dlake-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, tempConfigDir } from '../helpers/dlake.js';

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

function bash(line: string, env: Record<string, string>, cwd: string, input = '') {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
    const script = `dlake() { "${process.execPath}" "${BIN}" "$@"; }\n${line}`;
    const child = spawn('bash', ['-c', script], { env: cleanEnv(env), cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

let emu: Emulator;
let cfg: ReturnType<typeof tempConfigDir>;
beforeAll(async () => {
  cfg = tempConfigDir();
  // The setup block, done in-process: the emulator with the samples, and DLAKE_URL pointing at it.
  emu = await startEmulator({ samplesDir: SAMPLES });
});
afterAll(async () => {
  await emu.close();
  cfg.cleanup();
});

describe('README Quick tour', () => {
  it('documents its setup: the emulator with the sample files, and DLAKE_URL', () => {
    const [setup] = tourBlocks();
    expect(setup).toEqual([
      'npm run emulator -- --samples test/fixtures/samples &',
      'export DLAKE_URL=http://127.0.0.1:9047',
    ]);
  });

  it('runs every command of the tour, in order, against the emulator', async () => {
    const tour = tourBlocks()[1] ?? [];
    expect(tour.length).toBeGreaterThan(5);
    const env = { DLAKE_URL: emu.url, DLAKE_CONFIG_DIR: cfg.dir };
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
