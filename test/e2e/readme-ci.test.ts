// The README's GitHub Actions jobs work as written: each one runs here, step by step, against the emulator
// (see test/helpers/workflow.ts for what a test runner stands in for).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../helpers/csv.js';
import { useFixture } from '../helpers/fixture.js';
import { freePort } from '../helpers/free-port.js';
import { REPO, sharedDlakePack, userEnv } from '../helpers/package.js';
import { until } from '../helpers/until.js';
import { parseJob, runJob, type StepResult, type WorkflowJob, workflowBlocks } from '../helpers/workflow.js';

const README = readFileSync(join(REPO, 'README.md'), 'utf8');
const [exportJob, rehearseJob] = workflowBlocks(README).map(parseJob) as [WorkflowJob, WorkflowJob];
const DAILY_SQL = 'SELECT id FROM big WHERE id <= 3 ORDER BY id';

/** What a failed job printed, for the assertion message. */
const transcript = (results: StepResult[]): string =>
  results.map((r) => `$ ${r.step.run ?? r.step.uses} → ${r.code}\n${r.output}`).join('\n');

describe("the README's CI jobs", () => {
  let dir: string;
  let tarball: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dlake-ci-'));
    tarball = (await sharedDlakePack()).tarball;
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh runner: the checked-out repository, an empty home and an npm global prefix of its own. */
  function runner(name: string): { workspace: string; env: Record<string, string>; prefix: string } {
    const root = join(dir, name);
    const workspace = join(root, 'repo');
    const prefix = join(root, 'npm-global');
    mkdirSync(join(workspace, 'reports'), { recursive: true });
    mkdirSync(join(workspace, 'tools'));
    mkdirSync(join(prefix, 'bin'), { recursive: true });
    mkdirSync(join(root, 'home'));
    writeFileSync(join(workspace, 'reports', 'daily.sql'), `${DAILY_SQL}\n`);
    symlinkSync(tarball, join(workspace, 'tools', tarball.split('/').pop()!));
    const env = userEnv({
      HOME: join(root, 'home'),
      XDG_CONFIG_HOME: join(root, 'home', '.config'),
      PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
      npm_config_prefix: prefix,
      // The dlake tarball needs nothing from a registry: prove it.
      npm_config_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
    });
    return { workspace, env, prefix };
  }

  it('parses both jobs from the README', () => {
    expect(exportJob.steps.map((s) => s.uses ?? 'run')).toEqual([
      'actions/checkout@v4',
      'actions/setup-node@v4',
      'run',
      'run',
      'actions/upload-artifact@v4',
    ]);
    expect(rehearseJob.steps.filter((s) => s.run).length).toBe(5);
  });

  describe('the CI scripts job, against the emulator instead of lake.example.com', () => {
    // The job logs in itself, with the service user's client credentials.
    const fx = useFixture({ bigRows: 10 }, { login: false });

    it('installs dlake from the tarball, exports the report and finds the artifact', async () => {
      const { workspace, env } = runner('export');
      const results = await runJob(exportJob, {
        workspace,
        env,
        envOverrides: { DLAKE_URL: fx.emu.url, DLAKE_CLIENT_ID: 'ci-client' },
        secrets: { DLAKE_CLIENT_SECRET: 'ci-client-secret-1' },
      });
      expect(
        results.map((r) => r.code),
        transcript(results),
      ).toEqual([0, 0, 0, 0, 0]);
      expect(parseCsv(readFileSync(join(workspace, 'daily.csv'), 'utf8'))).toEqual([
        ['id'],
        ['1'],
        ['2'],
        ['3'],
      ]);
      // The service user's client credentials got the token (from the job's env and its secret).
      expect(fx.emu.log.find('POST', '/oauth/token').length).toBeGreaterThan(0);
      expect(fx.emu.jobs.list().map((j) => j.sql.trim())).toEqual([DAILY_SQL]);
    });
  });

  describe("the emulator chapter's rehearsal job", () => {
    let pidFile = '';
    let stopped = false;
    afterAll(() => {
      // If the job failed before its stop step, stop the emulator it started. Only then: once the emulator has
      // stopped, its pid is free, and the kernel soon gives it to another process (pid_max is 32,768 here, and
      // the suite starts thousands): a SIGKILL to it could end another test's daemon.
      if (stopped) return;
      const pid = /EMULATOR_PID=(\d+)/.exec(pidFile ? readFileSync(pidFile, 'utf8') : '')?.[1];
      if (pid) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {}
      }
    });

    it('starts dlake-emulator with armed faults, runs the script through them, and stops it', async () => {
      const { workspace, env, prefix } = runner('rehearse');
      pidFile = join(workspace, '.github-env');
      // The emulator's own install (it downloads DuckDB from a registry) is stood in for by this
      // repository's package, linked the way `npm install -g` links a bin.
      symlinkSync(join(REPO, 'emulator', 'bin', 'dlake-emulator.js'), join(prefix, 'bin', 'dlake-emulator'));
      // The job's port, 9047, may be taken on a shared machine: run it on a free one.
      const port = String(await freePort());
      const job = JSON.parse(JSON.stringify(rehearseJob).replaceAll('9047', port)) as WorkflowJob;
      const results = await runJob(job, {
        workspace,
        env,
        skip: (step) => /dlake-emulator-[\d.]+\.tgz/.test(step.run ?? ''),
      });
      expect(
        results.map((r) => r.code),
        transcript(results),
      ).toEqual([0, 0, 0, 0, 0, 0]);
      const rows = parseCsv(readFileSync(join(workspace, 'daily.csv'), 'utf8'));
      expect(rows).toEqual([['id'], ['1'], ['2'], ['3']]);
      const log = readFileSync(join(workspace, 'emulator.log'), 'utf8');
      expect(log).toContain('Faults armed:\n  503 on GET /api/v3/job*, 2 time(s)');
      // `kill` returns at once; the emulator says so as it stops.
      await until(
        () => readFileSync(join(workspace, 'emulator.log'), 'utf8').includes('Received SIGTERM, stopping.'),
        'the emulator stops',
      );
      stopped = true;
    });
  });
});
