// The SQL shell's psql commands through a real pseudo-terminal: \dt, \d, \i, \x auto, \watch, \e, and Tab
// completion of column names; what the screen shows, what the service was asked (the request log), and that a
// bad command is one error line and leaves the shell running.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import { KEY, type PtyDlake, startPty } from '../helpers/pty.js';

let dir: string;
let shell: PtyDlake | undefined;
const jobs = () => fx.emu.jobs.list();

const fx = useFixture({
  samplesDir: resolve(import.meta.dirname, '../fixtures/samples'),
  bigRows: 50,
  jobStepMs: 5,
});
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-shell-meta-'));
  const create = async (body: unknown) => {
    const r = await fx.run(['catalog', 'create', '--file', '-'], { input: JSON.stringify(body) });
    expect(r.code, r.stderr).toBe(0);
  };
  await create({
    entityType: 'dataset',
    type: 'PHYSICAL_DATASET',
    path: ['Samples', 'sales', '2024.csv'],
    format: { type: 'Text', extractHeader: true },
  });
  await create({ entityType: 'space', name: 'Shop' });
  await create({ entityType: 'folder', path: ['Shop', 'eu'] });
  await create({
    entityType: 'dataset',
    type: 'VIRTUAL_DATASET',
    path: ['Shop', 'orders'],
    sql: "SELECT 1 AS order_id, 'ann' AS customer_name",
  });
  await create({
    entityType: 'dataset',
    type: 'VIRTUAL_DATASET',
    path: ['Shop', "it's late"],
    sql: 'SELECT 1 AS late_id',
  });
  await create({
    entityType: 'dataset',
    type: 'VIRTUAL_DATASET',
    path: ['Shop', 'eu', 'returns'],
    sql: 'SELECT 2 AS return_id',
  });
  // The emulator learns a view's columns when a query reads it (the real service plans them at creation).
  for (const view of ['Shop.orders', 'Shop."it\'s late"']) {
    const r = await fx.run(['sql', `SELECT * FROM ${view}`]);
    expect(r.code, r.stderr).toBe(0);
  }
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  shell?.kill();
  shell = undefined;
});

function open(env: Record<string, string> = {}, size?: { cols: number; rows: number }): PtyDlake {
  shell = startPty(['sql'], { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url, ...env }, size);
  return shell;
}

/** The screen from the last occurrence of `marker` on. */
const afterLast = (screen: string, marker: string): string => screen.slice(screen.lastIndexOf(marker));
/** GET requests of the catalog whose path ends with `tail` (a listing or an entity read). */
const catalogGets = (tail: string) =>
  fx.emu.log.entries.filter((e) => e.method === 'GET' && decodeURIComponent(e.path).endsWith(tail)).length;

describe('\\dt and \\d', () => {
  it('lists tables and views by pattern, describes one, and lists each container once a session', async () => {
    fx.emu.log.clear();
    const sh = open();
    await sh.waitFor(/dlake>$/);
    sh.type(`\\d Shop.*${KEY.enter}`);
    await sh.waitFor(/SCHEMA\s+NAME\s+TYPE\n[\s\S]*dlake>$/);
    const listed = afterLast(sh.screen(), 'SCHEMA');
    expect(listed).toMatch(/^Shop\s+"it's late"\s+view$/m);
    expect(listed).toMatch(/^Shop\s+orders\s+view$/m);
    // A folder is not a relation, and a pattern of two parts looks one level down only.
    expect(listed).not.toContain('returns');
    expect(listed).not.toMatch(/^Shop\s+eu\b/m);
    // Globs in every component, any case; the same containers are not listed again.
    sh.type(`\\dv shop.*.RET*${KEY.enter}`);
    await sh.waitFor(/^Shop\.eu\s+returns\s+view\ndlake>$/m);
    // \dt lists tables only, \dv views only (as psql's).
    sh.type(`\\dt Shop.*${KEY.enter}`);
    await sh.waitFor(/Did not find any table named "Shop\.\*"\.\ndlake>$/);
    sh.type(`\\dt Samples.sales.*${KEY.enter}`);
    await sh.waitFor(/^Samples\.sales\s+"2024\.csv"\s+table\ndlake>$/m);
    sh.type(`\\dt Shop.nothing*${KEY.enter}`);
    await sh.waitFor(/Did not find any table named "Shop\.nothing\*"\.\ndlake>$/);
    // Tab reads the same cache: no new listing of Shop.
    sh.type(`SELECT * FROM Shop.or${KEY.tab}`);
    await sh.waitFor(/dlake> SELECT \* FROM Shop\.orders$/);
    expect(catalogGets('/by-path/Shop')).toBe(1);
    expect(catalogGets('/by-path/Shop/eu')).toBe(1);
    sh.type(`${KEY.ctrlC}\\d Shop.orders${KEY.enter}`);
    await sh.waitFor(/View "Shop\.orders"\nCOLUMN\s+TYPE\norder_id\s+\w+\ncustomer_name\s+VARCHAR\ndlake>$/);
    sh.type(`\\d Shop."it's late"${KEY.enter}`);
    await sh.waitFor(/View "Shop\."it's late""\nCOLUMN\s+TYPE\nlate_id\s+\w+\ndlake>$/);
    sh.type(`\\d Shop.nope${KEY.enter}`);
    await sh.waitFor(/error: not found: [^\n]*nope[^\n]*\n(hint: [^\n]*\n)?dlake>$/);
    sh.type(`\\q${KEY.enter}`);
    expect(await sh.exited).toBe(0);
  });

  it('\\d alone and \\dt alone list the context; at the top level they say how to name a container', async () => {
    const sh = open();
    await sh.waitFor(/dlake>$/);
    sh.type(`\\dt${KEY.enter}`);
    await sh.waitFor(/Did not find any tables\. Name a container: \\d Samples\.\*\ndlake>$/);
    sh.type(`\\q${KEY.enter}`);
    expect(await sh.exited).toBe(0);
    shell = startPty(['sql', '--context', 'Shop'], { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url });
    await shell.waitFor(/dlake>$/);
    shell.type(`\\d${KEY.enter}`);
    await shell.waitFor(/^Shop\s+orders\s+view\ndlake>$/m);
    // A bare name is looked for in the context.
    shell.type(`\\d orders${KEY.enter}`);
    await shell.waitFor(/View "Shop\.orders"\nCOLUMN\s+TYPE\norder_id/);
    shell.type(`\\q${KEY.enter}`);
    expect(await shell.exited).toBe(0);
  });
});

describe('Tab completion of column names', () => {
  it('offers the columns of the tables the statement reads, and of a dataset named by its path, each read once', async () => {
    fx.emu.log.clear();
    const sh = open();
    await sh.waitFor(/dlake>$/);
    sh.type(`SELECT * FROM Shop.orders WHERE cust${KEY.tab}`);
    await sh.waitFor(/dlake> SELECT \* FROM Shop\.orders WHERE customer_name$/);
    sh.type(` = 'x' AND order_${KEY.tab}`);
    await sh.waitFor(/WHERE customer_name = 'x' AND order_id$/);
    expect(catalogGets('/by-path/Shop/orders')).toBe(1);
    sh.type(`${KEY.ctrlC}SELECT Shop.orders.custo${KEY.tab}`);
    await sh.waitFor(/dlake> SELECT Shop\.orders\.customer_name$/);
    // Completing a container's children never reads an entity: only datasets have columns.
    sh.type(`${KEY.ctrlC}SELECT * FROM Shop.e${KEY.tab}`);
    await sh.waitFor(/dlake> SELECT \* FROM Shop\.eu$/);
    expect(catalogGets('/by-path/Shop/orders')).toBe(1);
    expect(catalogGets('/by-path/Shop')).toBe(1);
    // The table name being completed is not read as a table (no request for `Samp`).
    sh.type(`${KEY.ctrlC}SELECT * FROM Samp${KEY.tab}`);
    await sh.waitFor(/dlake> SELECT \* FROM Samples$/);
    expect(fx.emu.log.entries.filter((e) => e.path.endsWith('/Samp'))).toEqual([]);
    sh.type(`${KEY.ctrlC}\\q${KEY.enter}`);
    expect(await sh.exited).toBe(0);
  });
});

describe('\\i FILE', () => {
  it("runs a file's statements in order and stops at the first failure, naming it", async () => {
    const file = join(dir, 'three.sql');
    writeFileSync(
      file,
      "SELECT 'first' AS a;\n-- the next one fails\nSELECT * FROM no_such_table;\nSELECT 'third' AS c;\n",
    );
    const before = jobs().length;
    const sh = open();
    await sh.waitFor(/dlake>$/);
    sh.type(`\\i ${file}${KEY.enter}`);
    await sh.waitFor(/three\.sql: statement 2 \(line 3\): [\s\S]*\nhint: 1 statement was not run\ndlake>$/);
    expect(sh.screen()).toMatch(/^a\nfirst$/m);
    expect(sh.screen()).not.toContain('third');
    expect(sh.screen().match(/^error:/gm)).toHaveLength(1);
    const ran = jobs()
      .slice(before)
      .map((j) => j.sql);
    expect(ran).toEqual(["SELECT 'first' AS a", '-- the next one fails\nSELECT * FROM no_such_table']);
    // The shell goes on; a missing file and a missing argument are one error line each.
    sh.type(`\\i ${join(dir, 'missing.sql')}${KEY.enter}`);
    await sh.waitFor(/error: [^\n]*missing\.sql[^\n]*\n(hint: [^\n]*\n)?dlake>$/);
    sh.type(`\\i${KEY.enter}`);
    await sh.waitFor(/error: \\i needs a file name\nhint: e\.g\. \\i setup\.sql\ndlake>$/);
    sh.type(`SELECT 7 AS seven;${KEY.enter}`);
    await sh.waitFor(/seven\n7\ndlake>$/);
    sh.type(`\\q${KEY.enter}`);
    expect(await sh.exited).toBe(0);
  });
});

describe('\\x and \\timing', () => {
  it('\\x auto shows a table too wide for the terminal as records, a narrow one as a table; bad values are refused', async () => {
    const sh = open({}, { cols: 60, rows: 40 });
    await sh.waitFor(/dlake>$/);
    sh.type(`\\x auto${KEY.enter}`);
    await sh.waitFor('Expanded display is used automatically.');
    sh.type(`SELECT 'narrow' AS n;${KEY.enter}`);
    await sh.waitFor(/^n\nnarrow\ndlake>$/m);
    sh.type(`SELECT '${'w'.repeat(70)}' AS wide, 1 AS k;${KEY.enter}`);
    await sh.waitFor(/-\[ RECORD 1 \][\s\S]*k\s+\| 1\ndlake>$/);
    sh.type(`\\x maybe${KEY.enter}`);
    await sh.waitFor(/error: \\x takes on or off, not "maybe"\ndlake>$/);
    // From auto, \x toggles to off (as psql); then on.
    sh.type(`\\x${KEY.enter}`);
    await sh.waitFor(/Expanded display is off\.\ndlake>$/);
    sh.type(`\\x${KEY.enter}`);
    await sh.waitFor(/Expanded display is on\.\ndlake>$/);
    sh.type(`\\timing sometimes${KEY.enter}`);
    await sh.waitFor(/error: \\timing takes on or off, not "sometimes"\ndlake>$/);
    sh.type(`\\timing on${KEY.enter}`);
    await sh.waitFor(/Timing is on\.\ndlake>$/);
    sh.type(`\\timing on${KEY.enter}`);
    await sh.waitFor(/Timing is on\.\ndlake> \\timing on\nTiming is on\.\ndlake>$/);
    sh.type(`\\q${KEY.enter}`);
    expect(await sh.exited).toBe(0);
  });
});

describe('\\watch', () => {
  it('runs the last query again and again; Ctrl-C ends the watch, not the shell', async () => {
    const sh = open();
    await sh.waitFor(/dlake>$/);
    sh.type(`\\watch${KEY.enter}`);
    await sh.waitFor(/error: \\watch cannot be used with an empty query\nhint: [^\n]*\ndlake>$/);
    sh.type(`SELECT 'tick' AS t;${KEY.enter}`);
    await sh.waitFor(/tick\ndlake>$/);
    sh.type(`\\watch 0${KEY.enter}`);
    await sh.waitFor(/error: \\watch takes an interval in seconds[^\n]*"0"\nhint: e\.g\. \\watch 5\ndlake>$/);
    const ticks = () => jobs().filter((j) => j.sql === "SELECT 'tick' AS t").length;
    const before = ticks();
    sh.type(`\\watch 0.1${KEY.enter}`);
    await sh.waitFor(/\(every 0\.1s\)[\s\S]*\(every 0\.1s\)[\s\S]*\(every 0\.1s\)[\s\S]*tick/);
    sh.type(KEY.ctrlC);
    await sh.waitFor(/dlake>$/);
    const stopped = ticks();
    expect(stopped).toBeGreaterThanOrEqual(before + 3);
    // The shell is back and the watch is over: a new statement runs, and no tick follows it.
    sh.type(`SELECT 'after' AS later;${KEY.enter}`);
    await sh.waitFor(/after\ndlake>$/);
    await new Promise((r) => setTimeout(r, 400));
    expect(ticks()).toBe(stopped);
    // A query typed without `;` is watched at once (psql's `SELECT … \watch`).
    sh.type(`SELECT 'typed' AS u${KEY.enter}\\watch 0.1${KEY.enter}`);
    await sh.waitFor(/\(every 0\.1s\)\n\nu\ntyped\n/);
    sh.type(KEY.ctrlC);
    await sh.waitFor(/dlake>$/);
    sh.type(`\\q${KEY.enter}`);
    expect(await sh.exited).toBe(0);
  });

  it('prints tall results without the pager while watching, and pages again afterwards', async () => {
    const pager = join(dir, 'pager.sh');
    writeFileSync(pager, '#!/bin/sh\nsed "s/^/PAGED: /"\n', { mode: 0o755 });
    const sh = open({ PAGER: pager }, { cols: 60, rows: 12 });
    await sh.waitFor(/dlake>$/);
    sh.type(`SELECT id AS watched FROM big ORDER BY id${KEY.enter}\\watch 0.1${KEY.enter}`);
    await sh.waitFor(/\(every 0\.1s\)[\s\S]*\(every 0\.1s\)[\s\S]*\n50\n/);
    sh.type(KEY.ctrlC);
    await sh.waitFor(/dlake>$/);
    expect(sh.screen()).not.toContain('PAGED');
    sh.type(`SELECT id AS again FROM big ORDER BY id;${KEY.enter}`);
    await sh.waitFor(/PAGED: again\n[\s\S]*PAGED: 50\ndlake>$/);
    sh.type(`\\q${KEY.enter}`);
    expect(await sh.exited).toBe(0);
  });

  it('a failing query ends the watch with its error', async () => {
    const sh = open();
    await sh.waitFor(/dlake>$/);
    sh.type(`SELECT * FROM missing_table${KEY.enter}\\watch 0.1${KEY.enter}`);
    await sh.waitFor(/error: job [\s\S]*missing_table[\s\S]*dlake>$/);
    expect(sh.screen().match(/^error:/gm)).toHaveLength(1);
    expect(sh.screen().match(/\(every 0\.1s\)/g)).toHaveLength(1);
    sh.type(`\\q${KEY.enter}`);
    expect(await sh.exited).toBe(0);
  });
});

describe('\\e', () => {
  it('edits the last query in $EDITOR and runs what was saved; an unchanged file runs nothing; a failing editor loses nothing', async () => {
    const edit = join(dir, 'edit.sh');
    writeFileSync(edit, '#!/bin/sh\nsed -i "s/41/42/" "$1"\n', { mode: 0o755 });
    const fail = join(dir, 'fail.sh');
    writeFileSync(fail, '#!/bin/sh\nexit 3\n', { mode: 0o755 });
    const sh = open({ EDITOR: edit, VISUAL: '' });
    await sh.waitFor(/dlake>$/);
    sh.type(`SELECT 41 AS answer;${KEY.enter}`);
    await sh.waitFor(/answer\n41\ndlake>$/);
    sh.type(`\\e${KEY.enter}`);
    await sh.waitFor(/answer\n42\ndlake>$/);
    expect(jobs().at(-1)?.sql).toBe('SELECT 42 AS answer');
    sh.type(`\\q${KEY.enter}`);
    expect(await sh.exited).toBe(0);

    // `true` leaves the file as it was: nothing runs.
    const count = jobs().length;
    const same = open({ EDITOR: 'true', VISUAL: '' });
    await same.waitFor(/dlake>$/);
    same.type(`SELECT 1 AS one${KEY.enter}\\e${KEY.enter}`);
    await same.waitFor(/\\e\ndlake>$/);
    expect(jobs().length).toBe(count);
    same.type(`\\q${KEY.enter}`);
    expect(await same.exited).toBe(0);

    const broken = open({ EDITOR: fail, VISUAL: '' });
    await broken.waitFor(/dlake>$/);
    broken.type(`SELECT 'kept' AS k${KEY.enter}\\e${KEY.enter}`);
    await broken.waitFor(
      /error: the editor \([\s\S]*fail\.sh\) ended with exit code 3; nothing was\s*run\nhint: [^\n]*\n\s*\.\.>$/,
    );
    // The query typed is still there: ending it runs it.
    broken.type(`;${KEY.enter}`);
    await broken.waitFor(/kept\ndlake>$/);
    broken.type(`\\q${KEY.enter}`);
    expect(await broken.exited).toBe(0);
  });
});

describe('bad meta-commands', () => {
  it('one error line each, and the shell goes on', async () => {
    const sh = open();
    await sh.waitFor(/dlake>$/);
    sh.type(`\\zzz${KEY.enter}`);
    await sh.waitFor(/error: invalid command \\zzz\nhint: \\\? lists the commands\ndlake>$/);
    sh.type(`\\e extra.sql${KEY.enter}`);
    await sh.waitFor(/error: \\e takes no file here[^\n]*\ndlake>$/);
    sh.type(`\\?${KEY.enter}`);
    await sh.waitFor(/\\watch \[SECONDS\][\s\S]*dlake>$/);
    sh.type(`SELECT 3 AS three;${KEY.enter}`);
    await sh.waitFor(/three\n3\ndlake>$/);
    sh.type(`\\q${KEY.enter}`);
    expect(await sh.exited).toBe(0);
  });
});
