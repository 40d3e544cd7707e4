// Ids and names are checked before they become URL paths: `.`, `..`, empty values and control
// characters are refused with exit 2 and no request at all, in every command that puts one in a path. A job id the
// service sends is checked as it arrives: one that is no job id is a bad answer (exit 7), never sent back.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectFailure, useFixture } from '../helpers/fixture.js';

const fx = useFixture();

const BAD = ['..', '.', '', 'bob\u0007', 'x\ny'];

const COMMANDS: Array<[string, (id: string) => string[]]> = [
  ['job get', (id) => ['job', 'get', id]],
  ['job cancel -y', (id) => ['job', 'cancel', id, '-y']],
  ['job cancel --dry-run', (id) => ['job', 'cancel', id, '--dry-run']],
  ['job wait', (id) => ['job', 'wait', id]],
  ['job results', (id) => ['job', 'results', id]],
  ['job export', (id) => ['job', 'export', id, '--out', join(fx.configDir, 'rows.csv')]],
  ['catalog get --id', (id) => ['catalog', 'get', '--id', id]],
  ['catalog delete --id -y', (id) => ['catalog', 'delete', '--id', id, '-y']],
  ['catalog get PATH', (id) => ['catalog', 'get', `Samples/"${id.replaceAll('"', '""')}"`]],
  ['catalog ls PATH', (id) => ['catalog', 'ls', `"${id}"/x`]],
  ['source get', (id) => ['source', 'get', id]],
  ['source delete -y', (id) => ['source', 'delete', id, '-y']],
  ['user get', (id) => ['user', 'get', id]],
  ['user delete -y', (id) => ['user', 'delete', id, '-y']],
  ['user update', (id) => ['user', 'update', id, '--first-name', 'X']],
  ['user create --role', (id) => ['user', 'create', 'newbie', '--role', id]],
  ['pat list', (id) => ['pat', 'list', id]],
  ['pat create', (id) => ['pat', 'create', id, '--label', 'x', '--expires', '1d']],
  ['queue get', (id) => ['queue', 'get', id]],
  ['queue delete --dry-run', (id) => ['queue', 'delete', id, '--dry-run']],
  ['queue update', (id) => ['queue', 'update', id, '--max-running-jobs', '3']],
];

describe.each(COMMANDS)('%s', (_name, argsFor) => {
  it.each(BAD)('refuses %j: exit 2, one error line, no request', async (id) => {
    const r = await fx.run(argsFor(id));
    // An empty value of a repeatable option (user create --role "") is refused by its parser already.
    expectFailure(r, 2, /^error: .*(empty|needs a value|would change the URL's path|control character)/);
    expect(fx.emu.log.entries).toEqual([]);
  });
});

it('no export file is left behind by a refused job id', () => {
  expect(existsSync(join(fx.configDir, 'rows.csv'))).toBe(false);
  expect(existsSync(join(fx.configDir, 'rows.csv.partial'))).toBe(false);
});

it('an id with unusual characters is percent-encoded as one path segment', async () => {
  const r = await fx.run(['job', 'get', 'a/b?c#d%e f']);
  expect(r.code).toBe(4);
  expect(fx.emu.log.entries.map((e) => e.path)).toEqual(['/api/v3/job/a%2Fb%3Fc%23d%25e%20f']);
});

describe('a job id the service sends', () => {
  const ANSWERS = ['x'.repeat(2 * 1024 * 1024), '..', 'a/../../catalog', 'a\u0001b', 'not a job', ''];
  const out = () => join(fx.configDir, 'one.csv');
  it.each<[string, () => string[]]>([
    ['sql', () => ['sql', 'SELECT 1']],
    ['sql --no-wait', () => ['sql', 'SELECT 1', '--no-wait']],
    ['sql --out', () => ['sql', 'SELECT 1', '--out', out()]],
  ])('%s: one that is no job id is exit 7 with one error line, and nothing follows', async (_name, args) => {
    for (const id of ANSWERS) {
      fx.emu.log.clear();
      fx.emu.fault({ kind: 'schema', method: 'POST', path: '/api/v3/sql', times: 1, body: { id } });
      const r = await fx.run(args());
      expectFailure(r, 7, 'error: unexpected answer from POST /api/v3/sql: id: not a job id');
      expect(r.stderr.length).toBeLessThan(200);
      expect(fx.emu.log.entries.map((e) => `${e.method} ${e.path}`)).toEqual(['POST /api/v3/sql']);
    }
    expect(existsSync(out())).toBe(false);
  });
});

describe('a job id the history sends', () => {
  const ANSWERS: unknown[] = ['x'.repeat(2 * 1024 * 1024), '..', 'a/../../catalog', 'a\u0001b', '', null];
  /** The next history query's page of rows answers `rows` (the query itself runs, as on the service). */
  const historyAnswers = (rows: Record<string, unknown>[]) =>
    fx.emu.fault({
      kind: 'schema',
      method: 'GET',
      path: /^\/api\/v3\/job\/[^/]+\/results$/,
      times: 1,
      body: { rowCount: rows.length, schema: [{ name: 'job_id', type: { name: 'VARCHAR' } }], rows },
    });
  /** Only the history query was sent: its submission, its status and its one page of rows, nothing else. */
  const onlyTheHistoryQuery = () => {
    const query = fx.emu.jobs.list().at(-1)!;
    expect(query.sql).toContain('/* dlake: job history */');
    for (const e of fx.emu.log.entries) {
      expect(`${e.method} ${e.path}`).toMatch(
        new RegExp(`^(POST /api/v3/sql|GET /api/v3/job/${query.id}(/results)?)$`),
      );
    }
    expect(fx.emu.log.entries.at(-1)!.path).toBe(`/api/v3/job/${query.id}/results`);
  };

  it('job get SHORT: each one that is no job id is exit 7 with one error line, never a request to a path built of it', async () => {
    for (const id of ANSWERS) {
      fx.emu.log.clear();
      historyAnswers([{ job_id: id }]);
      const r = await fx.run(['job', 'get', 'abcdef12']);
      expectFailure(r, 7, 'error: unexpected answer from sys.jobs_recent: rows.0.job_id: not a job id');
      expect(r.stderr.length).toBeLessThan(200);
      onlyTheHistoryQuery();
    }
  });

  it('a short id looked up: a job id that does not start with it is exit 7, nothing asked of it', async () => {
    historyAnswers([
      { job_id: 'abcdef12-0000-4000-8000-000000000000' },
      { job_id: '0badf00d-0000-4000-8000-000000000000' },
    ]);
    const r = await fx.run(['job', 'why', 'abcdef12']);
    expectFailure(
      r,
      7,
      'error: unexpected answer from sys.jobs_recent: rows.1.job_id: does not start with abcdef12',
    );
    onlyTheHistoryQuery();
  });

  // Every history read checks its rows alike: the other commands that read it, with the answer a path is built of.
  it.each<[string, string[]]>([
    ['job why SHORT', ['job', 'why', 'abcdef12']],
    ['job profile SHORT', ['job', 'profile', 'abcdef12']],
    ['job list', ['job', 'list']],
    ['top --once', ['top', '--once']],
  ])('%s: a row whose job id is none is exit 7, nothing printed or asked of it', async (_name, args) => {
    historyAnswers([{ job_id: 'abcdef12-0000-4000-8000-000000000000' }, { job_id: 'a/../../catalog' }]);
    const r = await fx.run(args);
    expectFailure(r, 7, /^error: unexpected answer from sys\.jobs(_recent)?: rows\.1\.job_id: not a job id$/);
    onlyTheHistoryQuery();
  });
});
