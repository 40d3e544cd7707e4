// The SQL shell, driven through a real pseudo-terminal: what a person types, and what the screen shows.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import { KEY, type PtyDlake, startPty } from '../helpers/pty.js';
import { until } from '../helpers/until.js';

let dir: string;
let shell: PtyDlake | undefined;
const jobs = () => fx.emu.jobs.list();

const fx = useFixture({
  samplesDir: resolve(import.meta.dirname, '../fixtures/samples'),
  bigRows: 50,
  jobStepMs: 5,
});
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-shell-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  shell?.kill();
  shell = undefined;
});

function open(env: Record<string, string | undefined> = {}, size?: { cols: number; rows: number }): PtyDlake {
  shell = startPty(['sql'], { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url, ...env }, size);
  return shell;
}

/** The screen from the last prompt's line on. */
const afterLast = (screen: string, marker: string): string => screen.slice(screen.lastIndexOf(marker));

describe('dlake sql on a terminal: the SQL shell', () => {
  it('runs a statement typed over several lines, shows its table, and leaves on \\q', async () => {
    const sh = open();
    await sh.waitFor(/dlake>$/);
    sh.type(`SELECT id, name${KEY.enter}`);
    await sh.waitFor(/\.\.>$/);
    sh.type(`FROM big WHERE id < 3 ORDER BY id;${KEY.enter}`);
    await sh.waitFor(/user_2\ndlake>$/);
    expect(sh.screen()).toMatch(/id\s+name\n1\s+user_1\n2\s+user_2\ndlake>$/);
    sh.type(`\\q${KEY.enter}`);
    expect(await sh.exited).toBe(0);
  });

  it('leaves on Ctrl-D, and Ctrl-C at the prompt drops the unfinished statement', async () => {
    const sh = open();
    await sh.waitFor(/dlake>$/);
    sh.type(`SELECT 'never sent'${KEY.enter}`);
    await sh.waitFor(/\.\.>$/);
    sh.type(KEY.ctrlC);
    await sh.waitFor(/\^C\ndlake>$/);
    const before = jobs().length;
    sh.type(`SELECT 7 AS seven;${KEY.enter}`);
    await sh.waitFor(/seven\n7\ndlake>$/);
    expect(
      jobs()
        .slice(before)
        .map((j) => j.sql),
    ).toEqual(['SELECT 7 AS seven']);
    sh.type(KEY.ctrlD);
    expect(await sh.exited).toBe(0);
  });

  it('Ctrl-C cancels the running statement on the service and keeps the shell', async () => {
    const sh = open();
    await sh.waitFor(/dlake>$/);
    sh.type(`SELECT /* sleep:60000 */ 1 AS slow;${KEY.enter}`);
    await sh.waitFor('RUNNING');
    const job = jobs().at(-1)!;
    sh.type(KEY.ctrlC);
    await sh.waitFor(/cancelled: .*\ndlake>$/);
    expect(sh.screen()).toContain(`cancellation of job ${job.id} requested`);
    expect(fx.emu.log.find('POST', `/api/v3/job/${job.id}/cancel`)).toHaveLength(1);
    // The shell is still there and runs the next statement.
    sh.type(`SELECT 8 AS eight;${KEY.enter}`);
    await sh.waitFor(/eight\n8\ndlake>$/);
    expect(jobs().find((j) => j.id === job.id)?.state).toBe('CANCELED');
    sh.type(KEY.ctrlD);
    expect(await sh.exited).toBe(0);
  });

  it('keeps history in the config folder (0600), recalls it with Up and Ctrl-R, and never records a secret', async () => {
    const sh = open();
    await sh.waitFor(/dlake>$/);
    sh.type(`SELECT 41 AS answer;${KEY.enter}`);
    await sh.waitFor(/41\ndlake>$/);
    sh.type(`CREATE USER eve PASSWORD 'hunter22';${KEY.enter}`);
    await sh.waitFor(/error: [\s\S]*\ndlake>$/);
    sh.type(`SELECT 1 AS one;${KEY.enter}`);
    await sh.waitFor(/one\n1\ndlake>$/);
    sh.type(KEY.ctrlD);
    expect(await sh.exited).toBe(0);
    const file = join(fx.configDir, 'sql_history');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = readFileSync(file, 'utf8');
    expect(saved).toContain('SELECT 41 AS answer;\n');
    expect(saved).not.toContain('hunter22');

    // A new session: Up brings the last statement back; Ctrl-R finds an older one.
    const again = open();
    await again.waitFor(/dlake>$/);
    again.type(KEY.up);
    await again.waitFor(/dlake> SELECT 1 AS one;$/);
    again.type(KEY.up);
    // The secret statement is not in the session's history either.
    await again.waitFor(/dlake> SELECT 41 AS answer;$/);
    again.type(`${KEY.down}${KEY.down}`);
    await again.waitFor(/dlake>$/);
    again.type(`${KEY.ctrlR}answ`);
    await again.waitFor(/\(reverse-i-search\)'answ': SELECT 41 AS answer;$/);
    again.type(KEY.enter);
    await again.waitFor(/answer\n41\ndlake>$/);
    again.type(`${KEY.ctrlR}no such thing`);
    await again.waitFor(/\(failed reverse-i-search\)'no such thing': SELECT 41 AS answer;$/);
    again.type(KEY.escape);
    await again.waitFor(/dlake>$/);
    again.type(KEY.ctrlD);
    expect(await again.exited).toBe(0);
  });

  it('completes keywords and catalog paths on Tab, listing each container once', async () => {
    fx.emu.log.clear();
    const catalogReads = () =>
      fx.emu.log.entries.filter((e) => e.method === 'GET' && e.path.startsWith('/api/v3/catalog')).length;
    const sh = open();
    await sh.waitFor(/dlake>$/);
    // Nothing is listed before Tab asks for it.
    expect(catalogReads()).toBe(0);
    sh.type(`SELE${KEY.tab}`);
    await sh.waitFor(/dlake> SELECT$/);
    sh.type(` * FROM Samp${KEY.tab}`);
    await sh.waitFor(/dlake> SELECT \* FROM Samples$/);
    sh.type(`.sa${KEY.tab}`);
    await sh.waitFor(/dlake> SELECT \* FROM Samples\.sales$/);
    sh.type(`.2025${KEY.tab}`);
    await sh.waitFor(/dlake> SELECT \* FROM Samples\.sales\."2025\.csv"$/);
    const count = catalogReads();
    expect(count).toBeGreaterThan(0);
    // Tab again on the same container: answered from the session's cache.
    sh.type(`${KEY.ctrlC}SELECT * FROM Samples.sa${KEY.tab}`);
    await sh.waitFor(/dlake> SELECT \* FROM Samples\.sales$/);
    expect(catalogReads()).toBe(count);
    sh.type(`${KEY.ctrlC}\\q${KEY.enter}`);
    expect(await sh.exited).toBe(0);
  });

  it('\\d describes a dataset, \\x shows records vertically, \\timing times statements', async () => {
    const table = {
      entityType: 'dataset',
      type: 'PHYSICAL_DATASET',
      path: ['Samples', 'sales', '2024.csv'],
      format: { type: 'Text', extractHeader: true },
    };
    expect((await fx.run(['catalog', 'create', '--file', '-'], { input: JSON.stringify(table) })).code).toBe(
      0,
    );
    const sh = open();
    await sh.waitFor(/dlake>$/);
    sh.type(`\\d Samples/sales/2024.csv${KEY.enter}`);
    await sh.waitFor(/COLUMN\s+TYPE\nregion\s+VARCHAR\n[\s\S]*dlake>$/);
    sh.type(`\\d Samples.sales."2024.csv"${KEY.enter}`);
    await sh.waitFor(
      /COLUMN\s+TYPE\nregion\s+VARCHAR\n[\s\S]*COLUMN\s+TYPE\nregion\s+VARCHAR\n[\s\S]*dlake>$/,
    );
    sh.type(`\\d Samples${KEY.enter}`);
    await sh.waitFor(/error: Samples is a \w+: it has no columns[\s\S]*dlake>$/);
    sh.type(`\\x${KEY.enter}`);
    await sh.waitFor('Expanded display is on.');
    sh.type(`SELECT id, name FROM big WHERE id <= 2 ORDER BY id;${KEY.enter}`);
    await sh.waitFor(/-\[ RECORD 2 \][\s\S]*dlake>$/);
    expect(afterLast(sh.screen(), '-[ RECORD 1 ]')).toMatch(
      /^-\[ RECORD 1 \]-+\nid\s+\| 1\nname \| user_1\n-\[ RECORD 2 \]-+\nid\s+\| 2\nname \| user_2\n/,
    );
    sh.type(`\\x${KEY.enter}\\timing${KEY.enter}`);
    await sh.waitFor('Timing is on.');
    sh.type(`SELECT 5 AS five;${KEY.enter}`);
    await sh.waitFor(/five\n5\nTime: [\d.]+m?s\ndlake>$/);
    sh.type(`\\nope${KEY.enter}`);
    await sh.waitFor(/error: invalid command \\nope\nhint: .*\ndlake>$/);
    sh.type(`\\q${KEY.enter}`);
    expect(await sh.exited).toBe(0);
  });

  it('\\o FILE exports the next result through the export engine, then prints again', async () => {
    const out = join(dir, 'next.csv');
    const sh = open();
    await sh.waitFor(/dlake>$/);
    sh.type(`\\o ${out}${KEY.enter}`);
    await sh.waitFor(`The next result goes to ${out}.`);
    sh.type(`SELECT id FROM big WHERE id <= 3 ORDER BY id;${KEY.enter}`);
    await sh.waitFor(/wrote 3 rows to .*next\.csv[\s\S]*dlake>$/);
    expect(readFileSync(out, 'utf8')).toBe('id\n1\n2\n3\n');
    sh.type(`SELECT 9 AS nine;${KEY.enter}`);
    await sh.waitFor(/nine\n9\ndlake>$/);
    sh.type(`\\q${KEY.enter}`);
    expect(await sh.exited).toBe(0);
  });

  it('\\o into a named pipe with no reader: the terminal closing (SIGHUP) ends the wait and the shell, 129', async () => {
    const fifo = join(dir, 'no-reader');
    execFileSync('mkfifo', [fifo]);
    const sh = open();
    await sh.waitFor(/dlake>$/);
    sh.type(`\\o ${fifo}${KEY.enter}`);
    await sh.waitFor(/The next result goes to .*\ndlake>$/);
    sh.type(`SELECT 1 AS x;${KEY.enter}`);
    await sh.waitFor(`waiting for a reader of the named pipe ${fifo}…`);
    sh.kill('SIGHUP');
    // The line reaches the terminal before the exit, but the exit may be reported before the line is read.
    await sh.waitFor('error: hung up (SIGHUP) while waiting for a reader of the named pipe');
    expect(await sh.exited).toBe(129);
  });

  it('pages a result taller than the terminal through $PAGER, in plain text, with LESS=FRX when unset', async () => {
    const pager = join(dir, 'pager.sh');
    const seen = join(dir, 'paged.txt');
    writeFileSync(pager, `#!/bin/sh\necho "LESS=$LESS" > "${seen}"\ncat >> "${seen}"\necho PAGED\n`, {
      mode: 0o755,
    });
    // Colour on (a person's terminal), so that what the pager gets shows whether colour was taken out.
    const sh = open({ PAGER: pager, FORCE_COLOR: '1', NO_COLOR: undefined }, { cols: 100, rows: 30 });
    await sh.waitFor(/dlake>$/);
    sh.type(`SELECT 'short' AS s;${KEY.enter}`);
    await sh.waitFor(/short\ndlake>$/);
    expect(sh.screen()).not.toContain('PAGED');
    sh.type(`SELECT id FROM big ORDER BY id;${KEY.enter}`);
    await sh.waitFor(/PAGED\ndlake>$/);
    const paged = readFileSync(seen, 'utf8');
    expect(paged).toMatch(/^LESS=FRX\nid\n1\n2\n[\s\S]*\n50\n$/);
    expect(paged).not.toContain('\u001b');
    sh.type(`\\q${KEY.enter}`);
    expect(await sh.exited).toBe(0);
  });

  it("PAGER='less -S' shows a wide, tall result fitted and in colour, never escape codes as text", async () => {
    const sh = open(
      { PAGER: 'less -S', FORCE_COLOR: '1', NO_COLOR: undefined, LESS: undefined },
      {
        cols: 60,
        rows: 20,
      },
    );
    await sh.waitFor(/dlake>$/);
    sh.type(`SELECT id, name, note, note AS again, name AS who FROM big ORDER BY id;${KEY.enter}`);
    // less shows the first screen and waits (the result is taller than the terminal).
    await sh.waitFor(/user_1\b/);
    expect(sh.screen()).not.toMatch(/ESC\[|\^\[\[/);
    // Fitted to 60 columns, as `dlake sql` fits it: nothing for less -S to cut.
    expect(
      Math.max(
        ...sh
          .screen()
          .split('\n')
          .map((l) => [...l].length),
      ),
    ).toBeLessThanOrEqual(60);
    sh.type('q');
    await sh.waitFor(/dlake>$/);
    sh.type(`\\q${KEY.enter}`);
    expect(await sh.exited).toBe(0);
  });

  it('draws a pasted line that wraps as typed: editing it afterwards redraws it in place', async () => {
    const sh = open({}, { cols: 100, rows: 30 });
    await sh.waitFor(/dlake>$/);
    // The screen's rows joined: a wrapped line reads as one.
    const shows = (tail: string) => until(() => sh.screen().replace(/\n/g, '').endsWith(tail), tail);
    // 93 characters fill the first row after the 7 of the prompt: the cursor sits at the right edge.
    const head = `SELECT '${'a'.repeat(85)}`;
    sh.type(head);
    await shows(`dlake> ${head}`);
    const tail = `${'b'.repeat(200)}' AS s`;
    sh.type(tail);
    await shows(tail);
    // Left twice and a character typed: readline redraws the whole line from its first row.
    sh.type('\u001b[D\u001b[DZ');
    await shows(`${'b'.repeat(200)}' ASZ s`);
    const line = `dlake> ${head}${'b'.repeat(200)}' ASZ s`;
    const rows = line.match(/.{1,100}/g)!;
    expect(sh.screen().split('\n').slice(-rows.length)).toEqual(rows);
    expect(sh.screen().match(/dlake>/g)).toHaveLength(1);
    // Ctrl-E to the end, and the statement ended there.
    sh.type(`\u0005;${KEY.enter}`);
    await sh.waitFor(/dlake>$/);
    expect(jobs().at(-1)?.sql).toBe(`${head}${'b'.repeat(200)}' ASZ s`);
    sh.type(`\\q${KEY.enter}`);
    expect(await sh.exited).toBe(0);
  });

  it('says a failure with the hint `dlake sql "…"` gives for it, and keeps the shell', async () => {
    const sh = open();
    await sh.waitFor(/dlake>$/);
    // The token the service no longer knows, and no means to renew it: a 401.
    const token = fx.readJson('credentials.json').tokens.default.token;
    fx.emu.state.tokens.delete(token);
    try {
      sh.type(`SELECT 1;${KEY.enter}`);
      await sh.waitFor(
        /error: the service refused the credentials \(401\)\nhint: log in again with `dlake login` \(or check DLAKE_TOKEN \/ DLAKE_CLIENT_ID\)\ndlake>$/,
      );
      sh.type(`\\q${KEY.enter}`);
      expect(await sh.exited).toBe(0);
    } finally {
      expect((await fx.login()).code).toBe(0);
    }
  });
});
