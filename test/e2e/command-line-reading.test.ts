// Two things every command shares, each defined once: where the command words are on a line with global
// options before them (src/argv.ts), and an error's "what next" (its hint, worded by src/output/hints.ts),
// which every entry point prints alike: `dlake sql "…"`, `dlake sql -f`, `whoami --check` (the SQL shell's
// case is in test/e2e/sql-shell.test.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFailure, useFixture } from '../helpers/fixture.js';

let dir: string;

const fx = useFixture({}, { login: false });
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-argv-'));
  // A profile named as a command group.
  expect((await fx.login(undefined, 'job')).code).toBe(0);
  expect((await fx.run(['profile', 'set', 'job', '--output', 'csv'])).code).toBe(0);
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
});

describe('global options before the command', () => {
  it('`-p job catalog ls` runs catalog ls with the profile named job', async () => {
    const expected = await fx.run(['catalog', 'ls', '-p', 'job']);
    expect(expected.code, expected.stderr).toBe(0);
    expect(expected.stdout).toMatch(/^PATH,TYPE,ID,TAG\n@admin,HOME,/);
    for (const before of [['-p', 'job'], ['--profile', 'job'], ['--profile=job'], ['-qp', 'job']]) {
      fx.emu.log.clear();
      const r = await fx.run([...before, 'catalog', 'ls']);
      expect(r.code, `${before.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toBe(expected.stdout);
      expect(fx.emu.log.find('GET', '/api/v3/catalog')).toHaveLength(1);
    }
  });

  it('other options with a value before the command: -o json, --url, --timeout', async () => {
    const r = await fx.run(
      ['-o', 'json', '--url', fx.emu.url, '--timeout', '20s', '-p', 'job', 'catalog', 'ls'],
      {
        url: false,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ path: ['@admin'], containerType: 'HOME' });
  });

  it('`--` ends the options: what follows is the command', async () => {
    const r = await fx.run(['-p', 'job', '--', 'catalog', 'ls']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^PATH,TYPE,ID,TAG\n/);
  });

  it('`help` after global options shows the help of the command named', async () => {
    const r = await fx.run(['-p', 'job', 'help', 'job', 'wait']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Usage: dlake job wait/);
  });
});

describe("an error's hint, whatever the entry point", () => {
  const LOG_IN_AGAIN =
    'hint: log in again with `dlake login -p job` (or check DLAKE_TOKEN / DLAKE_CLIENT_ID)\n';

  beforeAll(() => {
    // The token the service no longer knows, and no means to renew it: a 401 on every request.
    fx.emu.state.tokens.delete(fx.readJson('credentials.json').tokens.job.token);
  });

  it('`dlake sql "…"` says to log in again', async () => {
    const r = await fx.run(['sql', 'SELECT 1', '-p', 'job']);
    expectFailure(r, 3, 'the service refused the credentials (401)');
    expect(r.stderr).toContain(LOG_IN_AGAIN);
  });

  it('`dlake sql -f` says the same, after the statement', async () => {
    const file = join(dir, 'q.sql');
    writeFileSync(file, 'SELECT 1;\n');
    const r = await fx.run(['sql', '-f', file, '-p', 'job']);
    expectFailure(r, 3, 'statement 1 (line 1): the service refused the credentials (401)');
    expect(r.stderr).toContain(LOG_IN_AGAIN);
  });

  it('`dlake sql -f --continue-on-error` says it for each statement that fails', async () => {
    const file = join(dir, 'two.sql');
    writeFileSync(file, 'SELECT 1;\nSELECT 2;\n');
    const r = await fx.run(['sql', '-f', file, '--continue-on-error', '-p', 'job']);
    expect(r.code).toBe(3);
    expect(r.stderr.split(LOG_IN_AGAIN)).toHaveLength(3);
    expect(r.stderr).toContain('error: statement 2 (line 2): the service refused the credentials (401)\n');
  });

  it('`whoami --check` says the same', async () => {
    const r = await fx.run(['whoami', '--check', '-p', 'job']);
    expect(r.code).toBe(3);
    expect(r.stderr.match(/^error: .*/gm)).toEqual(['error: the service refused the credentials (401)']);
    expect(r.stderr).toContain(LOG_IN_AGAIN);
  });
});
