// `dlake sql`, `dlake job …` and `dlake reflection summary` end to end against the emulator: output formats,
// waits that end on every final state, timeouts, cancel, Ctrl-C, and every bad input.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobsTestApi } from 'dlake-emulator';
import { beforeEach, describe, expect, it } from 'vitest';
import { startDlake } from '../helpers/dlake.js';
import { expectFailure, useFixture } from '../helpers/fixture.js';
import { until } from '../helpers/until.js';

const jobs = (): JobsTestApi => fx.emu.jobs;
const UNKNOWN = '00000000-1111-2222-3333-444444444444';

const fx = useFixture({ bigRows: 1000, jobStepMs: 10 });
beforeEach(() => {
  fx.emu.faults.clear();
});

async function submit(sql: string): Promise<string> {
  const r = await fx.run(['sql', sql, '--no-wait']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe('dlake sql', () => {
  it('prints a table of the first 100 rows and says how many there are', async () => {
    const r = await fx.run(['sql', 'SELECT id, name, flag FROM big ORDER BY id']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+name\s+flag$/);
    expect(lines[1]).toMatch(/^1\s+user_1\s+false$/);
    expect(lines).toHaveLength(101);
    expect(r.stderr).toContain('showing the first 100 rows of 1,000; use --max-rows N, or --out FILE');
  });

  it('prints every row as json, ndjson or csv, and --max-rows caps them', async () => {
    const sql = 'SELECT id, note FROM big WHERE id <= 12 ORDER BY id';
    // The three at once: each waits for its job's next poll.
    const [json, nd, csv] = await Promise.all([
      fx.run(['sql', sql, '-o', 'json']),
      fx.run(['sql', sql, '-o', 'ndjson', '--max-rows', '5']),
      fx.run(['sql', sql, '-o', 'csv', '--max-rows', '3']),
    ]);
    expect(json.code, json.stderr).toBe(0);
    const rows = JSON.parse(json.stdout);
    expect(rows).toHaveLength(12);
    expect(rows[2]).toEqual({ id: 3, note: 'line one\nline two' });
    // Pretty-printed like every other command's -o json.
    expect(json.stdout).toBe(`${JSON.stringify(rows, null, 2)}\n`);
    expect(
      nd.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual([1, 2, 3, 4, 5]);
    expect(nd.stderr).toContain('showing the first 5 rows of 12');
    expect(csv.stdout).toBe(
      'id,note\n1,"with, commas, inside"\n2,"with ""double quotes"" inside"\n3,"line one\nline two"\n',
    );
  });

  it('--query filters the rows before they are printed', async () => {
    const r = await fx.run([
      'sql',
      'SELECT id FROM big ORDER BY id',
      '-o',
      'json',
      '--query',
      '[?id > `998`].id',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([999, 1000]);
  });

  it('--no-wait prints the job id alone ({"id": …} with -o json)', async () => {
    const plain = await fx.run(['sql', 'SELECT 1', '--no-wait']);
    expect(plain.stdout).toMatch(/^[0-9a-f-]{36}\n$/);
    const json = await fx.run(['sql', 'SELECT 1', '--no-wait', '-o', 'json']);
    const id = JSON.parse(json.stdout).id as string;
    expect(jobs().get(id)).toBeDefined();
  });

  it('reads the query from standard input (-) or a file, and sends --context', async () => {
    const stdin = await fx.run(['sql', '-', '-o', 'json'], { input: 'SELECT 41 + 1 AS answer\n' });
    expect(JSON.parse(stdin.stdout)).toEqual([{ answer: 42 }]);
    const dir = mkdtempSync(join(tmpdir(), 'dlake-sql-'));
    try {
      writeFileSync(join(dir, 'q.sql'), 'SELECT 7 AS n');
      const file = await fx.run(['sql', '--file', join(dir, 'q.sql'), '-o', 'csv']);
      expect(file.stdout).toBe('n\n7\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const id = await submit('SELECT 1');
    expect(jobs().get(id)?.context).toEqual([]);
    const withContext = await fx.run(['sql', 'SELECT 1', '--context', 'Sales/"a/b"', '--no-wait']);
    expect(jobs().get(withContext.stdout.trim())?.context).toEqual(['Sales', 'a/b']);
  });

  it('SQL that fails: exit 6 with the engine message', async () => {
    const r = await fx.run(['sql', 'SELECT * FROM no_such_table']);
    expectFailure(r, 6, /^error: job [0-9a-f-]+ failed: .*no_such_table/);
    // Its results: the job failed, exit 6 as well (not 2, which would blame the command line).
    const id = /job ([0-9a-f-]+) failed/.exec(r.stderr)?.[1] ?? '';
    const results = await fx.run(['job', 'results', id]);
    expectFailure(results, 6, `job ${id} has no results: it ended FAILED`);
  });

  it('no query, an empty one, or both an argument and --file: exit 2, nothing sent', async () => {
    expectFailure(await fx.run(['sql']), 2, 'no query given');
    expectFailure(await fx.run(['sql', '-'], { input: '  \n' }), 2, 'the query is empty');
    expectFailure(await fx.run(['sql', 'SELECT 1', '--file', 'q.sql']), 2, 'not both');
    expectFailure(await fx.run(['sql', 'SELECT 1', '--max-rows', '-1']), 2, '--max-rows must be');
    expectFailure(
      await fx.run(['sql', 'SELECT 1', '--out', 'x.csv', '--format', 'xml']),
      2,
      '--format "xml" is not one of: csv, json, ndjson',
    );
    expect(fx.emu.log.find('POST', '/api/v3/sql')).toHaveLength(0);
  });

  it('--no-wait or --into with --out or --max-rows: exit 2 with the usage line, nothing sent', async () => {
    const cases: [string[], string][] = [
      [['--no-wait', '--out', 'x.csv'], "option '--no-wait' cannot be used with option '--out <file>'"],
      [['--max-rows', '5', '--no-wait'], "option '--no-wait' cannot be used with option '--max-rows <n>'"],
      [
        ['--into', 'a/b', '--max-rows', '5'],
        "option '--into <ref>' cannot be used with option '--max-rows <n>'",
      ],
    ];
    for (const [flags, words] of cases) {
      const r = await fx.run(['sql', 'SELECT 1', ...flags]);
      expectFailure(r, 2, words);
      expect(r.stderr).toMatch(/^usage: dlake sql \[options\] \[query\]$/m);
    }
    expect(fx.emu.log.entries).toHaveLength(0);
  });

  it('--read-only: a statement that could change data anywhere is refused, exit 2, before anything is sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dlake-ro-'));
    try {
      // The write is in the second statement, hidden from a lexer that ends comments at LF only.
      const hidden = await fx.run([
        'sql',
        '--read-only',
        'SELECT 1 LIMIT 1 --\r; CREATE TABLE pwned AS SELECT 1',
      ]);
      expect(hidden.code).toBe(2);
      expect(hidden.stderr).toBe(
        'error: one of the statements is a CREATE: only SELECT, WITH, VALUES, SHOW, DESCRIBE, EXPLAIN statements run with --read-only\n' +
          'hint: without --read-only, dlake sql runs any statement\n',
      );
      // A script: its first statement reads, its second passes a DELETE to a source's database; none runs.
      const script = join(dir, 'from-a-colleague.sql');
      writeFileSync(
        script,
        "SELECT 1 AS a;\nSELECT * FROM TABLE(pg.external_query('DELETE FROM orders'));\n",
      );
      expectFailure(await fx.run(['sql', '--read-only', '-f', script]), 2, 'calls external_query');
      expectFailure(await fx.run(['sql', '--read-only', '-'], { input: 'DROP TABLE big' }), 2, 'is a DROP');
      const into = await fx.run(['sql', '--read-only', 'SELECT 1', '--into', 'a/b']);
      expectFailure(into, 2, "option '--read-only' cannot be used with option '--into <ref>'");
      expect(fx.emu.log.find('POST', '/api/v3/sql')).toHaveLength(0);
      // A reading statement runs as without the flag.
      const ok = await fx.run(['sql', '--read-only', 'SELECT 7 AS x -- a comment\r\n', '-o', 'csv']);
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toBe('x\n7\n');
      expect(fx.emu.log.find('POST', '/api/v3/sql')).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never repeats POST /api/v3/sql, even after a 503', async () => {
    const before = jobs().list().length;
    fx.emu.fault({ kind: 'status', status: 503, path: '/api/v3/sql', method: 'POST', times: 1 });
    const r = await fx.run(['sql', 'SELECT 1']);
    expectFailure(r, 7, 'the service failed (503)');
    expect(fx.emu.log.find('POST', '/api/v3/sql')).toHaveLength(1);
    expect(jobs().list().length).toBe(before);
    // And a normal run submits exactly once.
    fx.emu.log.clear();
    expect((await fx.run(['sql', 'SELECT 1'])).code).toBe(0);
    expect(fx.emu.log.find('POST', '/api/v3/sql')).toHaveLength(1);
  });

  it('--wait-timeout: exit 7 with the job id, and the job is left running', async () => {
    const r = await fx.run(['sql', 'SELECT 1 /* sleep:600000 */', '--wait-timeout', '300ms']);
    // Which non-final state the job is in after 300 ms depends on how busy the machine is.
    expectFailure(
      r,
      7,
      /gave up waiting for job [0-9a-f-]+ after 300ms: it is still (PLANNING|ENQUEUED|STARTING|RUNNING) \(left running/,
    );
    const id = /job ([0-9a-f-]{36})/.exec(r.stderr)![1]!;
    expect(['PLANNING', 'ENQUEUED', 'STARTING', 'RUNNING']).toContain(jobs().get(id)?.state);
    expect(fx.emu.log.find('POST', /\/cancel$/)).toHaveLength(0);
    expect((await fx.run(['job', 'cancel', id, '-y'])).code).toBe(0);
  });

  it('Ctrl-C while waiting with --yes cancels the job, then exit 130', async () => {
    const child = startDlake(['sql', 'SELECT 1 /* sleep:600000 */', '--yes'], {
      env: { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url },
    });
    await until(() => /job [0-9a-f-]{36} submitted/.test(child.stderr), 'the job is submitted');
    const id = /job ([0-9a-f-]{36})/.exec(child.stderr)![1]!;
    await until(() => fx.emu.log.find('GET', `/api/v3/job/${id}`).length > 0, 'the wait polls');
    child.interrupt();
    const r = await child.done;
    expectFailure(r, 130, `interrupted while waiting for job ${id}`);
    expect(r.stderr).toContain(`cancellation of job ${id} requested`);
    await until(() => jobs().get(id)?.state === 'CANCELED', 'the job is canceled');
  });

  it('Ctrl-C while waiting without a terminal: no one to ask, so the job is cancelled at once', async () => {
    const child = startDlake(['sql', 'SELECT 1 /* sleep:600000 */'], {
      env: { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url },
    });
    await until(() => /job [0-9a-f-]{36} submitted/.test(child.stderr), 'the job is submitted');
    const id = /job ([0-9a-f-]{36})/.exec(child.stderr)![1]!;
    await until(() => fx.emu.log.find('GET', `/api/v3/job/${id}`).length > 0, 'the wait polls');
    child.interrupt();
    const r = await child.done;
    expectFailure(r, 130, `interrupted while waiting for job ${id}`);
    expect(r.stderr).toContain(`cancellation of job ${id} requested`);
    expect(fx.emu.log.find('POST', `/api/v3/job/${id}/cancel`)).toHaveLength(1);
    await until(() => jobs().get(id)?.state === 'CANCELED', 'the job is canceled');
  });
});

describe('dlake job', () => {
  it('get shows the state and which reflections were chosen, matched and considered', async () => {
    const id = await submit('SELECT count(*) AS n FROM big');
    await until(() => jobs().get(id)?.state === 'COMPLETED', 'the job completes');
    const r = await fx.run(['job', 'get', id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/state\s+COMPLETED/);
    expect(r.stdout).toMatch(/rows\s+1\n/);
    // Named, with their type and dataset path, and the id to paste.
    expect(r.stdout).toMatch(/reflections chosen\s+\S+ \((RAW|AGGREGATION)\) on \S+ \([0-9a-f-]{36}\)/);
    expect(r.stdout).toMatch(/reflections matched\s+\S+ \((RAW|AGGREGATION)\) on \S+ \([0-9a-f-]{36}\)/);
    expect(r.stdout).toMatch(/reflections considered\s+\S+ \((RAW|AGGREGATION)\) on \S+ \([0-9a-f-]{36}\)/);
    const json = JSON.parse((await fx.run(['job', 'get', id, '-o', 'json'])).stdout);
    expect(json.jobState).toBe('COMPLETED');
    expect(
      json.acceleration.reflectionRelationships.map((x: { relationship: string }) => x.relationship),
    ).toEqual(['CHOSEN', 'MATCHED', 'CONSIDERED']);
  });

  it('wait ends on COMPLETED (exit 0), and on FAILED and CANCELED (exit 6)', async () => {
    const ok = await fx.run(['job', 'wait', await submit('SELECT 1 /* sleep:300 */'), '-o', 'json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).jobState).toBe('COMPLETED');

    const failed = await fx.run(['job', 'wait', await submit('SELECT nope FROM big')]);
    expectFailure(failed, 6, /failed: .*nope/);

    const id = await submit('SELECT 1 /* sleep:600000 */');
    expect((await fx.run(['job', 'cancel', id, '-y'])).code).toBe(0);
    const canceled = await fx.run(['job', 'wait', id]);
    expectFailure(canceled, 6, `job ${id} was canceled: Query cancelled by user 'admin'`);
  });

  it('wait --timeout: exit 7 naming the job, which keeps running', async () => {
    const id = await submit('SELECT 1 /* sleep:600000 */');
    await until(() => jobs().get(id)?.state === 'RUNNING', 'the job runs');
    const r = await fx.run(['job', 'wait', id, '--timeout', '400ms']);
    expectFailure(r, 7, `gave up waiting for job ${id} after 400ms`);
    expect(r.stderr).toContain(`hint: wait again with \`dlake job wait ${id}\``);
    expect(jobs().get(id)?.state).toBe('RUNNING');
    expect((await fx.run(['job', 'cancel', id, '-y'])).code).toBe(0);
  });

  it('wait --timeout bounds the wait, not each request; a --timeout before the command is per request', async () => {
    const id = await submit('SELECT 1 /* sleep:20000 */');
    // Each status request takes 2 s: longer than either bound below (a margin for a loaded machine),
    // far shorter than the default 30 s per request.
    fx.emu.fault({ kind: 'latency', path: `/api/v3/job/${id}`, latencyMs: 2000 });
    // Both at once: each waits out its own bounds.
    const [wait, perRequest] = await Promise.all([
      fx.run(['job', 'wait', id, '--timeout', '300ms']),
      fx.run(['--timeout', '300ms', 'job', 'wait', id]),
    ]);
    expectFailure(wait, 7, `gave up waiting for job ${id} after 300ms`);
    expectFailure(
      perRequest,
      7,
      'no answer within the per-request timeout of 300ms; gave up after 4 attempts',
    );
  });

  it('cancel asks for confirmation (refused without a terminal), --dry-run sends nothing', async () => {
    const id = await submit('SELECT 1 /* sleep:600000 */');
    expectFailure(
      await fx.run(['job', 'cancel', id]),
      2,
      `refusing to cancel job ${id} without confirmation`,
    );
    const dry = await fx.run(['job', 'cancel', id, '--dry-run', '-o', 'json']);
    expect(JSON.parse(dry.stdout)).toMatchObject({
      dryRun: true,
      method: 'POST',
      url: expect.stringContaining(`/job/${id}/cancel`),
    });
    expect(fx.emu.log.find('POST', /\/cancel$/)).toHaveLength(0);
    const r = await fx.run(['job', 'cancel', id, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`cancellation of job ${id} requested`);
    await until(() => jobs().get(id)?.state === 'CANCELED', 'the job is canceled');
    const again = await fx.run(['job', 'cancel', id, '--yes']);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('had already ended (CANCELED)');
  });

  it('results prints one page, says where the next one starts, and --all prints every row', async () => {
    const id = await submit('SELECT id FROM big ORDER BY id');
    expect((await fx.run(['job', 'wait', id, '-q'])).code).toBe(0);
    const page = await fx.run(['job', 'results', id, '--offset', '10', '--limit', '3', '-o', 'csv']);
    expect(page.stdout).toBe('id\n11\n12\n13\n');
    expect(page.stderr).toContain('rows 11–13 of 1,000; next page: --offset 13');
    fx.emu.log.clear();
    const all = await fx.run(['job', 'results', id, '--all', '-o', 'ndjson']);
    expect(all.stdout.trim().split('\n')).toHaveLength(1000);
    const limits = fx.emu.log.find('GET', /\/results$/).map((e) => Number(e.query.limit));
    expect(limits).toEqual([500, 500]);
  });

  it('results of a job still running: the service 400 explained, exit 2', async () => {
    const id = await submit('SELECT 1 /* sleep:600000 */');
    await until(() => jobs().get(id)?.state === 'RUNNING', 'the job runs');
    const r = await fx.run(['job', 'results', id]);
    expectFailure(r, 2, `job ${id} has no results yet: it is RUNNING`);
    expect(r.stderr).toContain(`hint: wait for it with \`dlake job wait ${id}\``);
    expect((await fx.run(['job', 'cancel', id, '-y'])).code).toBe(0);
  });

  it('--limit 501: exit 2 before any request', async () => {
    const r = await fx.run(['job', 'results', UNKNOWN, '--limit', '501']);
    expectFailure(r, 2, `--limit "501" is too large: at most 500 (the service's page limit)`);
    expect(fx.emu.log.entries).toHaveLength(0);
  });

  it('an unknown job id: exit 4 from get, wait, results, export and cancel', async () => {
    const message = `error: not found: job ${UNKNOWN}`;
    expectFailure(await fx.run(['job', 'get', UNKNOWN]), 4, message);
    expectFailure(await fx.run(['job', 'wait', UNKNOWN]), 4, message);
    expectFailure(await fx.run(['job', 'results', UNKNOWN]), 4, message);
    expectFailure(await fx.run(['job', 'export', UNKNOWN, '--out', '-']), 4, message);
    expectFailure(await fx.run(['job', 'cancel', UNKNOWN, '-y']), 4, message);
  });
});

describe('dlake reflection summary', () => {
  it('reads every page', async () => {
    const r = await fx.run(['reflection', 'summary', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const items = JSON.parse(r.stdout) as Array<{ id: string }>;
    expect(items).toHaveLength(120);
    expect(new Set(items.map((i) => i.id)).size).toBe(120);
    const pages = fx.emu.log.find('GET', '/api/v3/reflection-summary');
    expect(pages).toHaveLength(2);
    expect(pages[1]!.query.pageToken).toBeTruthy();
  });

  it('filters, orders and limits; the table shows name, dataset and status', async () => {
    const r = await fx.run([
      'reflection',
      'summary',
      '--filter',
      'reflectionType=AGGREGATION',
      '--filter',
      'enabledFlag=true',
      '--order-by',
      '-reflectionName',
      '--limit',
      '5',
      '-o',
      'json',
    ]);
    const items = JSON.parse(r.stdout) as Array<{ name: string; reflectionType: string; isEnabled: boolean }>;
    expect(items).toHaveLength(5);
    expect(items.every((i) => i.reflectionType === 'AGGREGATION' && i.isEnabled)).toBe(true);
    expect(items.map((i) => i.name)).toEqual([...items.map((i) => i.name)].sort().reverse());
    const table = await fx.run(['reflection', 'summary', '--limit', '3']);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+TYPE\s+DATASET\s+STATUS\s+ENABLED\s+CHOSEN/);
    expect(table.stdout.trim().split('\n')).toHaveLength(4);
  });

  it('a bad filter or order: exit 2, nothing sent', async () => {
    expectFailure(
      await fx.run(['reflection', 'summary', '--filter', 'colour=red']),
      2,
      'unknown --filter attribute',
    );
    expectFailure(
      await fx.run(['reflection', 'summary', '--order-by', 'size']),
      2,
      '--order-by "size" is not one of: reflectionName, datasetName, reflectionType, -reflectionName',
    );
    expect(fx.emu.log.find('GET', '/api/v3/reflection-summary')).toHaveLength(0);
  });
});
