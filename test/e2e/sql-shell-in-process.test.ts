// The SQL shell run in this process on a stand-in terminal (test/helpers/shell-in-process.ts): what it costs to
// echo a paste (bytes written, not time), what `\o` checks before a query runs, where `\timing` prints, and what
// `\d` finds. What only a real terminal shows is in sql-shell.test.ts and sql-shell-meta.test.ts.
import { resolve } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import { type ShellInProcess, startShellInProcess } from '../helpers/shell-in-process.js';

// Counts the text the shell hands the statement splitter: the work a pasted statement costs.
const splitting = vi.hoisted(() => ({ chars: 0 }));
vi.mock('../../src/sql/split.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/sql/split.js')>();
  return {
    ...real,
    splitSql: (text: string) => {
      splitting.chars += text.length;
      return real.splitSql(text);
    },
  };
});

const jobs = () => fx.emu.jobs.list();

const fx = useFixture({
  samplesDir: resolve(import.meta.dirname, '../fixtures/samples'),
  bigRows: 50,
  jobStepMs: 5,
});

const ENTER = '\r';
const CTRL_C = '\u0003';
const CTRL_D = '\u0004';

function open(env: Record<string, string> = {}): ShellInProcess {
  return startShellInProcess({ DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url, ...env });
}

/** Waits until stderr shows a new prompt after `from` bytes of it. */
async function prompt(sh: ShellInProcess, from: number): Promise<void> {
  await sh.waitFor({
    test: (text: string) => text.slice(from).includes('dlake> '),
    toString: () => 'a new prompt',
  } as unknown as RegExp);
}

/**
 * Pastes `text` as a terminal delivers it, a read of 4 KiB at a time, and checks after each that the echo so far
 * is about what was pasted: every byte echoed once, not the line redrawn for each row it wraps to.
 */
async function paste(sh: ShellInProcess, text: string): Promise<void> {
  const start = sh.stderr.bytes;
  const longest = Math.max(...text.split('\r').map((l) => l.length));
  for (let at = 0; at < text.length; at += 4096) {
    sh.type(text.slice(at, at + 4096));
    await turn();
    // A line ended (Enter) adds a line break and the next prompt, drawn with what is typed after it (at most
    // a line): bounded by a line's length, whatever was pasted before.
    const sent = text.slice(0, at + 4096);
    const ended = sent.split('\r').length - 1;
    expect(sh.stderr.bytes - start).toBeLessThanOrEqual(sent.length + 4096 + (40 + longest) * ended);
  }
}

describe('the shell under paste', () => {
  it('echoes a pasted megabyte in bytes proportional to it, and serves Ctrl-C in the middle of it', async () => {
    const sh = open();
    await sh.waitFor('dlake> ');
    const chunk = 'x'.repeat(4096);
    const total = 256; // 1 MiB, delivered as a terminal delivers a paste: a read at a time
    let pasted = 0;
    const start = sh.stderr.bytes;
    let interruptedAt = -1;
    for (let k = 0; k < total; k++) {
      if (k === total / 2) {
        const before = sh.stderr.text.length;
        sh.type(CTRL_C);
        await turn();
        // Served at once, between two reads of the paste: the half pasted so far is dropped.
        expect(sh.stderr.text.slice(before)).toMatch(/^\^C\n/);
        interruptedAt = pasted;
      }
      sh.type(chunk);
      pasted += chunk.length;
      await turn();
      // Every byte pasted is echoed once; the prompt and line handling add a few bytes, not a redraw per row.
      expect(sh.stderr.bytes - start).toBeLessThanOrEqual(pasted + 4096);
    }
    expect(interruptedAt).toBe(512 * 1024);
    const before = sh.stderr.text.length;
    sh.type(CTRL_C);
    await prompt(sh, before);
    // The line after the Ctrl-C held the second half of the paste; the second Ctrl-C dropped it too.
    const sent = jobs().length;
    sh.type(`SELECT 1 AS one;${ENTER}`);
    await sh.waitFor(/one\n1\n/, 'stdout');
    expect(
      jobs()
        .slice(sent)
        .map((j) => j.sql),
    ).toEqual(['SELECT 1 AS one']);
    sh.type(CTRL_D);
    expect(await sh.done).toBe(0);
  });

  it('runs a pasted statement of 200 KB as pasted', async () => {
    const sh = open();
    await sh.waitFor('dlake> ');
    const literal = 'abcd'.repeat(50_000);
    await paste(sh, `SELECT length('${literal}') AS n;`);
    sh.type(ENTER);
    await sh.waitFor(/n\n200000\n/, 'stdout');
    expect(jobs().at(-1)?.sql).toBe(`SELECT length('${literal}') AS n`);
    sh.type(CTRL_D);
    expect(await sh.done).toBe(0);
  });
});

describe('the shell under a pasted script', () => {
  it('reads a statement pasted as 20,000 lines once, not once a line', async () => {
    const sh = open();
    await sh.waitFor('dlake> ');
    const lines = Array.from({ length: 20_000 }, (_, i) => `${i}`.padStart(48, 'x'));
    const text = `SELECT length('${lines.join('\r')}') AS n;\r`;
    const before = splitting.chars;
    await paste(sh, text);
    const length = 20_000 * 48 + 19_999;
    await sh.waitFor(new RegExp(`^n\\n${length}\\n$`), 'stdout', 30_000);
    // Each line is scanned about once: the splitter read about the statement's length, not 20,000 times it.
    expect(splitting.chars - before).toBeLessThan(3 * text.length);
    expect(jobs().at(-1)?.sql).toBe(`SELECT length('${lines.join('\n')}') AS n`);
    sh.type(CTRL_D);
    expect(await sh.done).toBe(0);
  });
});

describe('\\o checks its target when it is given', () => {
  it.each([
    ['x.parquet.gz', /error: cannot gzip a Parquet export \(.*x\.parquet\.gz\)/],
    [
      'no-such-folder/x.csv',
      /error: cannot write .*no-such-folder\/x\.csv: the folder .*no-such-folder does not exist/,
    ],
    ['package.json/x.csv', /error: cannot write .*package\.json\/x\.csv: .*package\.json is not a folder/],
  ])('refuses \\o %s before any query runs, and the next result is printed', async (target, error) => {
    const sh = open();
    await sh.waitFor('dlake> ');
    const sent = jobs().length;
    const before = sh.stderr.text.length;
    sh.type(`\\o ${target}${ENTER}`);
    await sh.waitFor({ test: (t: string) => error.test(t.slice(before)) } as unknown as RegExp);
    expect(sh.stderr.text.slice(before)).not.toContain('The next result goes to');
    expect(jobs().length).toBe(sent);
    sh.type(`SELECT 3 AS three;${ENTER}`);
    await sh.waitFor(/three\n3\n/, 'stdout');
    sh.type(CTRL_D);
    expect(await sh.done).toBe(0);
  });
});

describe('\\timing', () => {
  it('says the time under the result, and under the error of a statement that fails', async () => {
    const sh = open();
    await sh.waitFor('dlake> ');
    sh.type(`\\timing on${ENTER}`);
    await sh.waitFor('Timing is on.');
    let before = sh.stderr.text.length;
    sh.type(`SELECT nope FROM big;${ENTER}`);
    await sh.waitFor({ test: (t: string) => /Time: /.test(t.slice(before)) } as unknown as RegExp);
    await prompt(sh, sh.stderr.text.lastIndexOf('Time: '));
    expect(sh.stderr.text.slice(before)).toMatch(
      /error: [^\n]*nope[^\n]*\n(?:(?:hint| {2})[^\n]*\n)*Time: [\d.]+m?s\n/,
    );
    before = sh.stdout.text.length;
    const errBefore = sh.stderr.text.length;
    sh.type(`SELECT 5 AS five;${ENTER}`);
    await sh.waitFor({ test: (t: string) => /Time: /.test(t.slice(errBefore)) } as unknown as RegExp);
    expect(sh.stdout.text.slice(before)).toBe('five\n5\n');
    expect(sh.stderr.text.slice(errBefore)).not.toContain('error:');
    sh.type(CTRL_D);
    expect(await sh.done).toBe(0);
  });
});

describe('\\set readonly', () => {
  it('refuses what could change data, sends nothing, and runs what reads; sql --read-only starts with it on', async () => {
    const sh = startShellInProcess(
      { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url },
      { columns: 100, rows: 30 },
      ['--read-only'],
    );
    await sh.waitFor('dlake> ');
    const before = jobs().length;
    let from = sh.stderr.text.length;
    sh.type(`--\rDROP TABLE big /*${ENTER}SELECT 1 LIMIT 1 */;${ENTER}`);
    await sh.waitFor({ test: (t: string) => t.slice(from).includes('error:') } as unknown as RegExp);
    await prompt(sh, from);
    expect(sh.stderr.text.slice(from)).toContain(
      'error: the statement is a DROP: only SELECT, WITH, VALUES, SHOW, DESCRIBE, EXPLAIN statements run while readonly is on\nhint: \\set readonly off lets statements change data\n',
    );
    expect(jobs()).toHaveLength(before);
    sh.type(`SELECT 5 AS five;${ENTER}`);
    await sh.waitFor(/five\n5\n/, 'stdout');
    expect(jobs()).toHaveLength(before + 1);
    from = sh.stderr.text.length;
    sh.type(`\\set readonly off${ENTER}`);
    await sh.waitFor('Read-only is off.');
    sh.type(`\\set readonly${ENTER}`);
    await sh.waitFor('Read-only is on: only statements that read run.');
    sh.type(`\\set pager on${ENTER}`);
    await sh.waitFor('error: \\set knows readonly only, not "pager"');
    sh.type(CTRL_D);
    expect(await sh.done).toBe(0);
  });
});

describe('\\d on the data of the Quick tour', () => {
  beforeAll(async () => {
    // The README's tour promotes the sales folder of the sample files as a table.
    const promote = {
      entityType: 'dataset',
      type: 'PHYSICAL_DATASET',
      path: ['Samples', 'sales'],
      format: { type: 'Text', extractHeader: true },
    };
    const r = await fx.run(['catalog', 'create', '--file', '-'], { input: JSON.stringify(promote) });
    expect(r.code, r.stderr).toBe(0);
  });

  it('runs every example \\? gives for \\d and \\dt', async () => {
    const sh = open();
    await sh.waitFor('dlake> ');
    sh.type(`\\?${ENTER}`);
    await sh.waitFor(/\\q +leave/);
    // A description wrapped under its column on the terminal is read as its one line.
    const help = sh.stderr.text.replace(/\r?\n {20}/g, ' ');
    // The examples in parentheses, up to a `;` (`\dt`'s go on to say what * and ? match).
    const examples = (command: string) => {
      const line = help.split('\n').find((l) => l.startsWith(`${command} `))!;
      return /\(([^);]*)/
        .exec(line)![1]!
        .split(/, | or /)
        .map((e) => e.trim());
    };
    const described = examples('\\d');
    expect(described.length).toBeGreaterThanOrEqual(2);
    for (const name of [...described.map((e) => `\\d ${e}`), ...examples('\\dt').map((e) => `\\dt ${e}`)]) {
      const out = sh.stdout.text.length;
      const err = sh.stderr.text.length;
      sh.type(`${name}${ENTER}`);
      await sh.waitFor({ test: (t: string) => t.slice(err).includes('dlake> ') } as unknown as RegExp);
      expect(sh.stderr.text.slice(err), name).not.toMatch(/error:|Did not find/);
      expect(sh.stdout.text.slice(out), name).toMatch(
        /^(Table "[^"]+"\nCOLUMN\s+TYPE\n|SCHEMA\s+NAME\s+TYPE\n)/,
      );
    }
    sh.type(CTRL_D);
    expect(await sh.done).toBe(0);
  });

  it('\\d big describes the table a statement reads, though no catalog listing holds it', async () => {
    const sh = open();
    await sh.waitFor('dlake> ');
    const out = sh.stdout.text.length;
    sh.type(`\\d big${ENTER}`);
    await sh.waitFor(/note\s+VARCHAR\n/, 'stdout');
    expect(sh.stdout.text.slice(out)).toMatch(
      /^Table "big"\nCOLUMN\s+TYPE\nid\s+BIGINT\nname\s+VARCHAR\namount\s+DOUBLE\nflag\s+BOOLEAN\nnote\s+VARCHAR\n$/,
    );
    // A name neither the catalog nor the engine knows is still "not found", and nothing is left running.
    const err = sh.stderr.text.length;
    sh.type(`\\d no_such_thing${ENTER}`);
    await sh.waitFor({
      test: (t: string) => /error: .*no_such_thing/.test(t.slice(err)),
    } as unknown as RegExp);
    expect(jobs().filter((j) => !['COMPLETED', 'FAILED', 'CANCELED'].includes(j.state))).toEqual([]);
    sh.type(CTRL_D);
    expect(await sh.done).toBe(0);
  });

  it("the engine's errors name the table as the statement wrote it, never the emulator's own view", async () => {
    const r = await fx.run(['sql', 'SELECT nope FROM Samples.sales JOIN big ON big.id = 1']);
    expect(r.code).toBe(6);
    expect(r.stderr).not.toMatch(/ds_[0-9a-f]/);
    expect(r.stderr).toContain('LINE 1: SELECT nope FROM Samples.sales JOIN big');
  });
});

describe('results on the terminal', () => {
  it('fits a wide row to the terminal as `dlake sql` does, data never cut', async () => {
    const sh = startShellInProcess(
      { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url, PAGER: '' },
      { columns: 40, rows: 30 },
    );
    await sh.waitFor('dlake> ');
    // Free text (several words) may be cut; a number, or a string of one word, never is.
    sh.type(`SELECT 1234567890123 AS big_number, '${'lorem ipsum '.repeat(5).trim()}' AS wide;${ENTER}`);
    await sh.waitFor(/1234567890123/, 'stdout');
    const lines = sh.stdout.text.split('\n');
    expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(40);
    expect(sh.stdout.text).toContain('1234567890123');
    // Only free text is cut, as `dlake sql` cuts it on a terminal (src/output fits both).
    expect(sh.stdout.text).toMatch(/^big_number\s+wide\n1234567890123\s+lorem ipsum [a-z ]*…\n$/);
    sh.type(CTRL_D);
    expect(await sh.done).toBe(0);
  });
});
