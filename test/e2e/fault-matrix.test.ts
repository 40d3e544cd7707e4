// The fault matrix: every read command and the export, against each of the emulator's fault switches.
// Each cell is the outcome (exit code) the contract promises; the matrix is printed as the test's report
// (and copied into the README). Every command gets its own emulator, so the commands run side by side.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FaultSpec } from 'dlake-emulator';
import { afterAll, describe, expect, it } from 'vitest';
import { expectFailure, type Fixture, startFixture } from '../helpers/fixture.js';

interface FaultCase {
  name: string;
  spec: Omit<FaultSpec, 'path'>;
  /** Extra arguments (a short --timeout for the latency case). */
  args?: string[];
  /** Exit code expected: 0 means the retries absorbed the fault. */
  expect: number;
  /** The `api` command prints any body as it came, so an unreadable body is not its failure. */
  apiExpect?: number;
}

const FAULTS: FaultCase[] = [
  {
    name: 'latency beyond --timeout',
    spec: { kind: 'latency', latencyMs: 1500 },
    args: ['--timeout', '300ms'],
    expect: 7,
  },
  {
    name: '429 + Retry-After, once',
    spec: { kind: 'status', status: 429, retryAfter: 1, times: 1 },
    expect: 0,
  },
  { name: '503, twice', spec: { kind: 'status', status: 503, times: 2 }, expect: 0 },
  { name: '502, three times', spec: { kind: 'status', status: 502, times: 3 }, expect: 0 },
  { name: '504, always', spec: { kind: 'status', status: 504 }, expect: 7 },
  { name: 'reset mid-body, once', spec: { kind: 'reset', times: 1 }, expect: 0 },
  { name: 'reset mid-body, always', spec: { kind: 'reset' }, expect: 7 },
  { name: 'truncated body, once', spec: { kind: 'truncate', times: 1 }, expect: 0 },
  { name: 'HTML instead of JSON', spec: { kind: 'html' }, expect: 7, apiExpect: 0 },
  { name: 'body not JSON', spec: { kind: 'malformed' }, expect: 7, apiExpect: 0 },
  { name: 'body breaks the schema', spec: { kind: 'schema' }, expect: 7, apiExpect: 0 },
];

interface CommandCase {
  name: string;
  args: (ids: { job: string; out: string }) => string[];
  /** Writes a file: none may be left behind on failure. */
  writes?: boolean;
}

const COMMANDS: CommandCase[] = [
  { name: 'whoami --check', args: () => ['whoami', '--check'] },
  { name: 'api GET', args: () => ['api', 'GET', '/api/v3/catalog'] },
  { name: 'catalog ls', args: () => ['catalog', 'ls'] },
  { name: 'catalog get', args: () => ['catalog', 'get', 'Samples'] },
  { name: 'catalog tree', args: () => ['catalog', 'tree', 'Samples'] },
  { name: 'source list', args: () => ['source', 'list'] },
  { name: 'source get', args: () => ['source', 'get', 'Samples'] },
  { name: 'job get', args: ({ job }) => ['job', 'get', job] },
  { name: 'job results', args: ({ job }) => ['job', 'results', job] },
  { name: 'job export', args: ({ job, out }) => ['job', 'export', job, '--out', out], writes: true },
  { name: 'user get', args: () => ['user', 'get', 'admin'] },
  { name: 'pat list', args: () => ['pat', 'list', 'admin'] },
  { name: 'queue list', args: () => ['queue', 'list'] },
  { name: 'reflection summary', args: () => ['reflection', 'summary'] },
];

const SAMPLES = join(import.meta.dirname, '../fixtures/samples');
const outcomes = new Map<string, Map<string, string>>();
const fixtures: Fixture[] = [];

afterAll(async () => {
  await Promise.all(fixtures.map((f) => f.close()));
  const header = ['fault \\ command', ...COMMANDS.map((c) => c.name)];
  const rows = FAULTS.map((f) => [f.name, ...COMMANDS.map((c) => outcomes.get(f.name)?.get(c.name) ?? '—')]);
  const md = [header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
  console.log(`\nFault matrix (ok = succeeded after retries; N = exit code)\n\n${md}\n`);
});

/** A finished job whose id the job commands use, submitted straight to the emulator. */
async function completedJob(fx: Fixture): Promise<string> {
  const token = fx.emu.state.issueToken(fx.emu.state.userByName('admin')!.id, 'session', 3_600_000).token;
  const headers = { authorization: `_service${token}`, 'content-type': 'application/json' };
  const res = await fetch(`${fx.emu.url}/api/v3/sql`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ sql: 'SELECT * FROM big' }),
  });
  const { id } = (await res.json()) as { id: string };
  for (;;) {
    const job = (await (await fetch(`${fx.emu.url}/api/v3/job/${id}`, { headers })).json()) as {
      jobState: string;
    };
    if (job.jobState === 'COMPLETED') return id;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.concurrent('fault matrix', () => {
  for (const command of COMMANDS) {
    it(command.name, async () => {
      const fx = await startFixture({ samplesDir: SAMPLES, bigRows: 1200, jobStepMs: 1 });
      fixtures.push(fx);
      expect((await fx.login()).code).toBe(0);
      const job = await completedJob(fx);
      const out = join(fx.configDir, 'export.csv');
      // The command works without faults.
      const clean = await fx.run(command.args({ job, out }));
      expect(clean.code, clean.stderr).toBe(0);
      rmSync(out, { force: true });

      for (const fault of FAULTS) {
        fx.emu.faults.clear();
        fx.emu.fault({ ...fault.spec, path: '/api/v3/' });
        const r = await fx.run([...command.args({ job, out }), ...(fault.args ?? [])]);
        fx.emu.faults.clear();
        const want = command.name === 'api GET' ? (fault.apiExpect ?? fault.expect) : fault.expect;
        const row = outcomes.get(fault.name) ?? new Map<string, string>();
        outcomes.set(fault.name, row.set(command.name, r.code === 0 ? 'ok' : String(r.code)));
        if (want === 0) {
          expect(r.code, `${command.name} under ${fault.name}: ${r.stderr}`).toBe(0);
        } else {
          expectFailure(r, want, /^error: /);
        }
        if (command.writes) {
          const leftovers = readdirSync(fx.configDir).filter((f) => f.startsWith('export.csv'));
          expect(leftovers, `${fault.name}: files left`).toEqual(r.code === 0 ? ['export.csv'] : []);
          rmSync(out, { force: true });
        }
        expect(existsSync(`${out}.partial`)).toBe(false);
      }
    });
  }
});

describe('no repeated POST /api/v3/sql', () => {
  for (const spec of [
    { kind: 'status', status: 503 },
    { kind: 'reset' },
    { kind: 'latency', latencyMs: 1500 },
  ] as const) {
    it(`a ${spec.kind} on the submission is reported once, never retried`, async () => {
      const fx = await startFixture();
      fixtures.push(fx);
      expect((await fx.login()).code).toBe(0);
      fx.emu.fault({ ...spec, path: '/api/v3/sql', method: 'POST' });
      const r = await fx.run(['sql', 'SELECT 1', '--timeout', '300ms']);
      expectFailure(r, 7, /^error: /);
      expect(fx.emu.log.find('POST', '/api/v3/sql')).toHaveLength(1);
    });
  }
});
