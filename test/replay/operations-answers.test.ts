// Recorded answers of real servers for the operations commands (test/fixtures/real/, origins in its README):
// the job history tables of both editions as the vendor's diagnostic collector recorded them, and the search
// examples of the vendor's API reference, served byte for byte by the stub.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { type StubRoute, startStub } from './stub.js';

const DIR = resolve(import.meta.dirname, '../fixtures/real');
const text = (name: string) => readFileSync(join(DIR, name), 'utf8');
const configDir = mkdtempSync(join(tmpdir(), 'dlake-replay-ops-'));
afterAll(() => rmSync(configDir, { recursive: true, force: true }));
const JOB = '2f067496-7cf0-a70e-0222-34d53a5dc800';
const PID = '11111111-2222-4333-8444-555555555555';

/** A history query answered with `results` (a recorded body), under `root` (`/api/v3` or the project's). */
function historyRoutes(root: string, results: string): StubRoute[] {
  return [
    { method: 'POST', path: `${root}/sql`, body: JSON.stringify({ id: JOB }) },
    { method: 'GET', path: `${root}/job/${JOB}/results`, body: results },
    {
      method: 'GET',
      path: `${root}/job/${JOB}`,
      body: JSON.stringify({ jobState: 'COMPLETED', rowCount: 2 }),
    },
  ];
}

async function run(routes: StubRoute[], args: string[], env: Record<string, string> = {}) {
  const stub = await startStub(routes);
  try {
    const r = await runInProcess(args, {
      env: { DLAKE_CONFIG_DIR: configDir, DLAKE_URL: stub.url, DLAKE_TOKEN: 'replay-token', ...env },
    });
    return { ...r, requests: stub.requests };
  } finally {
    await stub.close();
  }
}

describe('job list on recorded history tables', () => {
  it('self-hosted sys.jobs_recent (epoch millis, datasets as a string, ids that are not UUIDs)', async () => {
    const r = await run(historyRoutes('/api/v3', text('ddc-sys-jobs-recent.json')), [
      'job',
      'list',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const [first, second] = JSON.parse(r.stdout);
    expect(first).toMatchObject({
      id: 'Query1',
      state: 'FAILED',
      user: 'dremio_user',
      submittedAt: '2024-04-24T14:26:23.248Z',
      endedAt: '2024-04-24T14:26:23.250Z',
      durationMs: 2,
      queue: null,
      error: "Object 'example_view' not found [...]",
      datasets: [],
    });
    expect(second).toMatchObject({
      id: 'Query2',
      datasets: ['sys.jobs'],
      queue: 'Low Cost User Queries',
      durationMs: 55,
      error: null,
    });
    const table = await run(historyRoutes('/api/v3', text('ddc-sys-jobs-recent.json')), ['job', 'list']);
    expect(table.stdout).toContain('Low Cost User Queries');
  });

  it('hosted sys.project.history.jobs (nanosecond epochs, datasets as arrays, no schema)', async () => {
    const root = `/v0/projects/${PID}`;
    const r = await run(
      historyRoutes(root, text('ddc-sys-project-history-jobs.json')),
      ['job', 'list', '-o', 'json'],
      {
        DLAKE_EDITION: 'cloud',
        DLAKE_PROJECT_ID: PID,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const [first, second] = JSON.parse(r.stdout);
    expect(first).toMatchObject({
      id: '1c38de7b-1028-54d9-e238-87eae52bc200',
      state: 'FAILED',
      user: '$dremio$',
      submittedAt: '2023-01-17T22:30:28.723Z',
      durationMs: 102,
      datasets: [],
      queue: null,
    });
    expect(second).toMatchObject({
      datasets: ['max-margalith-test-s3.eks-test.userdata1.csv'],
      engine: 'preview',
      queue: 'SMALL',
      durationMs: 1873,
    });
    expect(r.requests[0]).toBe(`POST ${root}/sql`);
  });
});

describe('search on the published examples', () => {
  for (const [fixture, env, path] of [
    ['docs-search.json', {}, '/api/v3/search'],
    [
      'cloud-docs-search.json',
      { DLAKE_EDITION: 'cloud', DLAKE_PROJECT_ID: PID },
      `/v0/projects/${PID}/search`,
    ],
  ] as const) {
    it(`${fixture}: a result with neither category nor id, lastModifiedAt or modifiedAt`, async () => {
      const r = await run(
        [{ method: 'POST', path, body: text(fixture) }],
        ['search', 'orders', '--limit', '1', '-o', 'json'],
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([
        expect.objectContaining({
          kind: 'table',
          path: ['Prod', 'Sales', 'Orders'],
          id: null,
          lastModifiedAt: '2024-01-01T10:00:00Z',
        }),
      ]);
      // One page for --limit 1, though the answer offers a next one.
      expect(r.requests.filter((q) => q.startsWith('POST'))).toEqual([`POST ${path}`]);
    });
  }
});

describe('job profile on a recorded download', () => {
  it('summarises the profile a real server produced', async () => {
    const { summariseProfile } = await import('../../src/api/profile.js');
    const s = summariseProfile(readFileSync(join(DIR, 'dqd-profile.json')), 2);
    expect(s).toMatchObject({
      user: 'rssvihla',
      totalMs: 1781,
      planningMs: 88,
      queuedMs: 32,
      queue: 'Low Cost User Queries',
    });
    expect(s.operators.map((o) => `${o.operator} ${o.type}`)).toEqual([
      '00-06 HASH_AGGREGATE',
      '00-07 TEXT_SUB_SCAN',
    ]);
  });
});
