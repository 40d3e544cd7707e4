// Text from the service or the user reaches stderr with its control characters shown as symbols, as table
// cells are (docs/cli-contract.md "Errors"): no raw ESC, BEL or CR can restyle, ring or rewrite the terminal.
// An error's text is cut at 2,000 characters; -v shows all of it.
import { describe, expect, it } from 'vitest';
import { expectFailure, useFixture } from '../helpers/fixture.js';
import { startPty } from '../helpers/pty.js';

const fx = useFixture();

const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('control characters never reach stderr raw', () => {
  it('a failed job whose message quotes the user’s SQL', async () => {
    const r = await fx.run(['sql', 'SELECT * FROM "evil\u001b]0;pwned\u0007\u001b[2J"']);
    expect(r.code, r.stderr).toBe(6);
    expect(r.stderr).toContain('error:');
    expect(r.stderr).not.toMatch(RAW_CONTROL);
    expect(r.stderr).toContain('evil␛]0;pwned␇␛[2J');
  });

  it('a notice naming what the service stored (a space named with control characters)', async () => {
    const name = 'Ring\u0007\u001b[31mRed\rX';
    const made = await fx.run([
      'api',
      'POST',
      'catalog',
      '--data',
      JSON.stringify({ entityType: 'space', name }),
    ]);
    expect(made.code, made.stderr).toBe(0);
    const id = JSON.parse(made.stdout).id as string;
    const r = await fx.run(['catalog', 'delete', '--id', id, '-y']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(RAW_CONTROL);
  });

  it('the user’s own input echoed in a usage error', async () => {
    const r = await fx.run(['catalog', 'ls', '--\u001b[31mbogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(RAW_CONTROL);
    expect(r.stderr).toContain('␛[31mbogus');
  });
});

describe('an error’s text is bounded', () => {
  it('cut at 2,000 characters without -v, whole with -v', async () => {
    const long = `missing_${'x'.repeat(5000)}`;
    const r = await fx.run(['sql', `SELECT * FROM ${long}`]);
    expectFailure(r, 6, 'more characters; -v shows all');
    const line = r.stderr.split('\n').find((l) => l.startsWith('error:'))!;
    expect(line.length).toBeLessThan(2100);
    const v = await fx.run(['sql', `SELECT * FROM ${long}`, '-v']);
    expect(v.code).toBe(6);
    expect(v.stderr).toContain(long);
  });
});

describe('CSV carries control characters to a file or a pipe, and shows them on a terminal', () => {
  const cell = 'x\u001b[31my\u0007 zero\u200bwidth';
  const body = { rowCount: 1, schema: [{ name: 'c', type: { name: 'VARCHAR' } }], rows: [{ c: cell }] };

  it('to a pipe: the bytes as they are', async () => {
    fx.emu.fault({ kind: 'schema', path: /\/results$/, times: 1, body });
    const r = await fx.run(['sql', 'SELECT 1', '-o', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`c\n${cell}\n`);
  });

  it('to a terminal: ESC, BEL and the zero-width space shown, for a result and for any command', async () => {
    fx.emu.fault({ kind: 'schema', path: /\/results$/, times: 1, body });
    const env = { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url };
    const sql = startPty(['sql', 'SELECT 1', '-o', 'csv', '-q'], env);
    expect(await sql.exited).toBe(0);
    expect(sql.raw).toContain('x␛[31my␇ zero<U+200B>width');
    expect(sql.raw).not.toMatch(/\u001b\[31m|\u0007|\u200b/);
    const made = await fx.run([
      'api',
      'POST',
      'catalog',
      '--data',
      JSON.stringify({ entityType: 'space', name: `csv${cell}` }),
    ]);
    expect(made.code, made.stderr).toBe(0);
    const ls = startPty(['catalog', 'ls', '-o', 'csv', '-q'], env);
    expect(await ls.exited).toBe(0);
    expect(ls.raw).toContain('csvx␛[31my␇ zero<U+200B>width');
    expect(ls.raw).not.toMatch(/\u001b\[31m|\u0007|\u200b/);
  });

  it('--out - likewise: shown on a terminal (CSV, JSON), the bytes as they are to a pipe', async () => {
    const c1 = `${cell}\u009b31m\u202eevil`;
    const one = { ...body, rows: [{ c: c1 }] };
    fx.emu.fault({ kind: 'schema', path: /\/results$/, times: 1, body: one });
    const piped = await fx.run(['sql', 'SELECT 1', '--out', '-']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toBe(`c\n${c1}\n`);

    fx.emu.fault({ kind: 'schema', path: /\/results$/, times: 1, body: one });
    const csv = await fx.run(['sql', 'SELECT 1', '--out', '-'], { tty: true });
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toBe('c\nx␛[31my␇ zero<U+200B>width\ufffd31m<U+202E>evil\n');

    fx.emu.fault({ kind: 'schema', path: /\/results$/, times: 1, body: one });
    const json = await fx.run(['sql', 'SELECT 1', '--out', '-', '--format', 'ndjson'], { tty: true });
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toBe('{"c":"x\\u001b[31my\\u0007 zero\\u200bwidth\\u009b31m\\u202eevil"}\n');
    expect(JSON.parse(json.stdout).c).toBe(c1);
  });

  it('binary data is not written to a terminal (exit 2), and is to a pipe', async () => {
    const r = await fx.run(['sql', 'SELECT 1 AS x', '--out', '-', '--format', 'parquet'], { tty: true });
    expectFailure(r, 2, 'dlake does not write Parquet to a terminal');
    expect(r.stderr).toContain('hint: redirect standard output');
    const piped = await fx.run(['sql', 'SELECT 1 AS x', '--out', '-', '--format', 'parquet']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout.startsWith('PAR1')).toBe(true);
  });

  it('a wiki text likewise: as it is to a pipe, shown on a terminal', async () => {
    const space = await fx.run(['api', 'POST', 'catalog', '--data', '{"entityType":"space","name":"Notes"}']);
    expect(space.code, space.stderr).toBe(0);
    const set = await fx.run(['catalog', 'wiki', 'Notes', '--set-file', '-'], {
      input: `# Notes\n${cell}\n`,
    });
    expect(set.code, set.stderr).toBe(0);
    const piped = await fx.run(['catalog', 'wiki', 'Notes']);
    expect(piped.stdout).toBe(`# Notes\n${cell}\n`);
    const env = { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url };
    const shown = startPty(['catalog', 'wiki', 'Notes', '-q'], env);
    expect(await shown.exited).toBe(0);
    expect(shown.raw).toContain('x␛[31my␇ zero<U+200B>width');
    expect(shown.raw).not.toMatch(/\u001b\[31m|\u0007|\u200b/);
  });
});

describe('names in the text reports of lineage and access why', () => {
  it('a space named with bidirectional and zero-width characters is shown visibly', async () => {
    const name = 'Rev\u202eesrever\u200bzw';
    const made = await fx.run([
      'api',
      'POST',
      'catalog',
      '--data',
      JSON.stringify({ entityType: 'space', name }),
    ]);
    expect(made.code, made.stderr).toBe(0);
    const view = await fx.run([
      'api',
      'POST',
      'catalog',
      '--data',
      JSON.stringify({ entityType: 'dataset', type: 'VIRTUAL_DATASET', path: [name, 'v'], sql: 'SELECT 1' }),
    ]);
    expect(view.code, view.stderr).toBe(0);
    const id = JSON.parse(view.stdout).id as string;
    const shown = 'Rev<U+202E>esrever<U+200B>zw';
    const lineage = await fx.run(['catalog', 'lineage', '--id', id]);
    expect(lineage.code, lineage.stderr).toBe(0);
    expect(lineage.stdout).toContain(shown);
    const why = await fx.run(['access', 'why', 'admin', '--id', id]);
    expect(why.code, why.stderr).toBe(0);
    expect(why.stdout).toContain(shown);
    for (const out of [lineage.stdout, why.stdout]) expect(out).not.toMatch(/[\u202e\u200b]/);
  });
});
