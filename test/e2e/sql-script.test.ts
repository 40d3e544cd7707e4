// `dlake sql -f FILE`: statements split on `;` (quotes and comments respected), run in order, each result
// printed; the first failure stops the run naming the statement; --continue-on-error runs the rest.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectFailure, useFixture } from '../helpers/fixture.js';

let dir: string;
const submitted = (): string[] => fx.emu.jobs.list().map((j) => j.sql);
let before = 0;
const newlySubmitted = (): string[] => submitted().slice(before);

const fx = useFixture({ bigRows: 50, jobStepMs: 5 });
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-script-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  before = submitted().length;
});

function script(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const GOOD = `-- a report; in three statements
SELECT 'a;b' AS "x;y" FROM big WHERE id = 1;
/* the second; with a comment */
SELECT id FROM big
  WHERE id <= 2 ORDER BY id;
SELECT COUNT(*) AS n FROM big -- no ; at the end
`;

describe('dlake sql -f', () => {
  it('runs the statements in order and prints each result in the chosen format', async () => {
    const r = await fx.run(['sql', '-f', script('good.sql', GOOD), '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([{ 'x;y': 'a;b' }, { id: 1 }, { id: 2 }, { n: 50 }]);
    expect(newlySubmitted()).toEqual([
      `-- a report; in three statements\nSELECT 'a;b' AS "x;y" FROM big WHERE id = 1`,
      '/* the second; with a comment */\nSELECT id FROM big\n  WHERE id <= 2 ORDER BY id',
      'SELECT COUNT(*) AS n FROM big -- no ; at the end',
    ]);
  });

  it('prints tables one after the other, and reads the script from standard input with -f -', async () => {
    const r = await fx.run(['sql', '-f', '-'], { input: 'SELECT 1 AS one;\nSELECT 2 AS two;\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^one\n1\n\ntwo\n2\n$/);
  });

  it('stops at the first failure with exit 6, naming the statement and its line', async () => {
    const file = script(
      'bad.sql',
      'SELECT 1 AS one;\n\n-- next fails\nSELECT * FROM\n  no_such_table;\nSELECT 3;\n',
    );
    const r = await fx.run(['sql', '-f', file, '-o', 'csv']);
    expect(r.code).toBe(6);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^error: statement 2 \(line 4\): job [0-9a-f-]+ failed: .*no_such_table/);
    expect(r.stdout).toBe('one\n1\n');
    expect(newlySubmitted()).toHaveLength(2);
  });

  it("--continue-on-error runs the rest and exits with the first failure's code", async () => {
    const file = script('two-bad.sql', 'SELECT * FROM nope_1;\nSELECT 2 AS two;\nSELECT * FROM nope_2;\n');
    const r = await fx.run(['sql', '-f', file, '--continue-on-error', '-o', 'csv']);
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('two\n2\n');
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(errors).toEqual([
      expect.stringMatching(/^error: statement 1 \(line 1\): .*nope_1/),
      expect.stringMatching(/^error: statement 3 \(line 3\): .*nope_2/),
      'error: 2 of 3 statements failed; the first was statement 1 (line 1)',
    ]);
    expect(newlySubmitted()).toHaveLength(3);
  });

  it('refuses, before sending anything, a script it cannot run as written', async () => {
    expectFailure(
      await fx.run(['sql', '-f', script('open.sql', "SELECT 1;\nSELECT 'it;s\n;")]),
      2,
      'statement 2 (line 2) has an unclosed string literal',
    );
    expectFailure(
      await fx.run(['sql', '-f', script('empty.sql', '-- nothing\n ; ;\n')]),
      2,
      'holds no SQL statement',
    );
    expectFailure(
      await fx.run(['sql', '-f', script('two.sql', 'SELECT 1; SELECT 2;'), '--out', join(dir, 'o.csv')]),
      2,
      '--out takes one statement; ',
    );
    expectFailure(await fx.run(['sql', '-f', join(dir, 'missing.sql')]), 2, 'cannot read');
    expectFailure(await fx.run(['sql', 'SELECT 1', '--continue-on-error']), 2, 'applies to a script');
    expect(newlySubmitted()).toEqual([]);
  });

  it('a script of one statement keeps --out', async () => {
    const out = join(dir, 'one.csv');
    const r = await fx.run([
      'sql',
      '-f',
      script('one.sql', 'SELECT id FROM big WHERE id < 3 ORDER BY id;\n'),
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(out, 'utf8')).toBe('id\n1\n2\n');
  });

  it('without a terminal, dlake sql alone is a usage error (exit 2)', async () => {
    expectFailure(await fx.run(['sql']), 2, 'no query given');
  });
});

describe('dlake sql with several statements in one argument', () => {
  it('runs them one after the other and prints each result, as -f does', async () => {
    const r = await fx.run(['sql', 'SELECT 1 AS x; SELECT 2 AS y', '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('{"x":1}\n{"y":2}\n');
    expect(newlySubmitted()).toEqual(['SELECT 1 AS x', 'SELECT 2 AS y']);
  });

  it('the same on standard input, tables one after the other', async () => {
    const r = await fx.run(['sql', '-'], { input: 'SELECT 1 AS x;\nSELECT 2 AS y;\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('x\n1\n\ny\n2\n');
    expect(newlySubmitted()).toEqual(['SELECT 1 AS x', 'SELECT 2 AS y']);
  });

  it('the first failure stops the run, naming the statement; --continue-on-error runs the rest', async () => {
    const stop = await fx.run(['sql', 'SELECT * FROM nope_1; SELECT 2 AS y', '-o', 'csv']);
    expect(stop.code).toBe(6);
    expect(stop.stderr).toMatch(/^error: statement 1 \(line 1\): .*nope_1/m);
    expect(stop.stdout).toBe('');
    expect(newlySubmitted()).toEqual(['SELECT * FROM nope_1']);
    before = submitted().length;
    const all = await fx.run([
      'sql',
      'SELECT * FROM nope_1; SELECT 2 AS y',
      '-o',
      'csv',
      '--continue-on-error',
    ]);
    expect(all.code).toBe(6);
    expect(all.stdout).toBe('y\n2\n');
    expect(newlySubmitted()).toHaveLength(2);
  });

  it('--out takes one statement; an unclosed quote is refused; nothing is sent', async () => {
    expectFailure(
      await fx.run(['sql', 'SELECT 1; SELECT 2', '--out', join(dir, 'two.csv')]),
      2,
      '--out takes one statement; the query holds 2',
    );
    expectFailure(
      await fx.run(['sql', "SELECT 1; SELECT 'open"]),
      2,
      'the query: statement 2 (line 1) has an unclosed string literal',
    );
    expect(newlySubmitted()).toEqual([]);
  });

  it('one statement is sent as it was given, its ; included', async () => {
    const r = await fx.run(['sql', 'SELECT 1 AS x; -- done', '-o', 'csv']);
    expect([r.code, r.stdout]).toEqual([0, 'x\n1\n']);
    expect(newlySubmitted()).toEqual(['SELECT 1 AS x; -- done']);
  });
});
