// SIGTERM (CI runners, `docker stop`, Kubernetes) and SIGHUP (a closed terminal) get the same clean-up as
// Ctrl-C: the job being waited on is cancelled on the service, an export leaves neither FILE nor
// FILE.partial, and dlake ends with 143 / 129 and one `error:` line. Spawned: signals need a process.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobsTestApi } from 'dlake-emulator';
import { beforeEach, describe, expect, it } from 'vitest';
import { startDlake } from '../helpers/dlake.js';
import { expectFailure, useFixture } from '../helpers/fixture.js';
import { until } from '../helpers/until.js';

let dir: string;
const jobs = (): JobsTestApi => fx.emu.jobs;

const fx = useFixture({ bigRows: 20_000, jobStepMs: 5 });
beforeEach(() => {
  fx.emu.faults.clear();
  dir = mkdtempSync(join(tmpdir(), 'dlake-signals-'));
  return () => rmSync(dir, { recursive: true, force: true });
});

const start = (args: string[]) =>
  startDlake(args, { env: { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url }, killAfterMs: 30_000 });

describe.each([
  ['SIGTERM', 143, 'terminated (SIGTERM)'],
  ['SIGHUP', 129, 'hung up (SIGHUP)'],
] as const)('%s', (signal, code, words) => {
  it(`while waiting on a job: the job is cancelled on the service, exit ${code}`, async () => {
    const child = start(['sql', 'SELECT 1 /* sleep:10000 */']);
    await until(() => /job [0-9a-f-]{36} submitted/.test(child.stderr), 'the job is submitted');
    const id = /job ([0-9a-f-]{36})/.exec(child.stderr)![1]!;
    await until(() => fx.emu.log.find('GET', `/api/v3/job/${id}`).length > 0, 'the wait polls');
    child.kill(signal);
    const r = await child.done;
    expectFailure(r, code, `error: ${words} while waiting for job ${id}`);
    expect(r.stderr).toContain(`cancellation of job ${id} requested`);
    expect(fx.emu.log.find('POST', `/api/v3/job/${id}/cancel`)).toHaveLength(1);
    await until(() => jobs().get(id)?.state === 'CANCELED', 'the job is canceled');
  });

  it(`during an export: no FILE, the partial kept for --resume as the hint says, exit ${code}`, async () => {
    const id = (await fx.run(['sql', 'SELECT * FROM big ORDER BY id', '--no-wait'])).stdout.trim();
    await until(() => jobs().get(id)?.state === 'COMPLETED', 'the job completes');
    fx.emu.fault({ kind: 'latency', path: /\/results$/, latencyMs: 100 });
    const file = join(dir, 'rows.csv');
    const child = start(['job', 'export', id, '--out', file, '--concurrency', '2']);
    await until(
      () => fx.emu.log.find('GET', `/api/v3/job/${id}/results`).filter((e) => e.status === 200).length >= 3,
      'some pages are served',
    );
    expect(existsSync(`${file}.partial`)).toBe(true);
    child.kill(signal);
    const r = await child.done;
    expectFailure(
      r,
      code,
      new RegExp(
        `^error: ${words.replace(/[()]/g, '\\$&')}: export stopped after [\\d,]+ rows; .*rows\\.csv was not written, the first [\\d,]+ rows are kept in .*rows\\.csv\\.partial$`,
      ),
    );
    expect(r.stderr).toContain(`hint: resume with: dlake job export ${id} --out ${file} --resume`);
    expect(existsSync(file)).toBe(false);
  });

  it(`during a plain request: stops at once, exit ${code}`, async () => {
    fx.emu.fault({ kind: 'latency', path: '/api/v3/catalog', latencyMs: 5000 });
    const child = start(['api', 'GET', '/api/v3/catalog']);
    await until(() => fx.emu.log.find('GET', '/api/v3/catalog').length > 0, 'the request arrives');
    child.kill(signal);
    const r = await child.done;
    expectFailure(r, code, `error: ${words}`);
    expect(fx.emu.log.find('GET', '/api/v3/catalog')).toHaveLength(1);
  });
});
