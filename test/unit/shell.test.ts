// The SQL shell's pieces in-process: completion, history and its secrets rule, the vertical view, the pager's
// width test. The shell as a whole is tested through a pseudo-terminal in test/e2e/sql-shell.test.ts.
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonNumber } from '../../src/api/exact-json.js';
import { UsageError } from '../../src/errors.js';
import { needsPager, pagerFor, pagerTakesColour, widestLine } from '../../src/output/pager.js';
import type { CatalogCache } from '../../src/shell/catalog-cache.js';
import { Completer, dottedComponents, sqlName, tablesRead } from '../../src/shell/complete.js';
import { describedRef, findRelations, matches, patternParts } from '../../src/shell/describe.js';
import { HISTORY_FILE, HISTORY_SIZE, History } from '../../src/shell/history.js';
import { mayHoldSecret } from '../../src/shell/history-filter.js';
import {
  expandedMessage,
  parseExpanded,
  parseFileArg,
  parseMeta,
  parseSwitch,
  parseWatchInterval,
} from '../../src/shell/meta.js';
import { verticalView } from '../../src/shell/vertical.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'dlake-shell-unit-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('completion', () => {
  const tree: Record<string, string[]> = {
    '[]': ['Samples', 'Sales 2024', '@admin'],
    '["Samples"]': ['sales', 'Q1 report.final.csv'],
    '["Samples","sales"]': ['2024.csv', '2025.csv'],
  };
  const calls: string[] = [];
  const completer = new Completer(
    async (path) => {
      calls.push(JSON.stringify(path));
      const names = tree[JSON.stringify(path)];
      if (!names) throw new Error('not found');
      return names;
    },
    ['\\d', '\\q', '\\timing'],
  );

  it('quotes names that are not plain identifiers', () => {
    expect(sqlName('sales')).toBe('sales');
    expect(sqlName('2024.csv')).toBe('"2024.csv"');
    expect(sqlName('say "hi"')).toBe('"say ""hi"""');
  });

  it('reads the dotted path being typed, quotes included', () => {
    expect(dottedComponents('Samples.sales."20')).toEqual({ parents: ['Samples', 'sales'], last: '20' });
    expect(dottedComponents('"a.b"."c""d".e')).toEqual({ parents: ['a.b', 'c"d'], last: 'e' });
  });

  it('completes keywords in the case typed, and top-level names', async () => {
    expect(await completer.complete('sel')).toEqual([['select'], 'sel']);
    expect(await completer.complete('SELECT * FR')).toEqual([['FROM'], 'FR']);
    expect(await completer.complete('SELECT * FROM Sa')).toEqual([['Samples', '"Sales 2024"'], 'Sa']);
  });

  it('completes children of a path, listing each container once', async () => {
    calls.length = 0;
    expect(await completer.complete('SELECT * FROM Samples.sales.2')).toEqual([
      ['Samples.sales."2024.csv"', 'Samples.sales."2025.csv"'],
      'Samples.sales.2',
    ]);
    expect(await completer.complete('SELECT * FROM Samples.sales."2025')).toEqual([
      ['Samples.sales."2025.csv"'],
      'Samples.sales."2025',
    ]);
    expect(calls).toEqual(['["Samples","sales"]']);
  });

  it('shows what a name from the service holds: no escape sequence or bidi control reaches the terminal', async () => {
    const hostile = new Completer(async () => ['ev\u001b]0;PWNED\u0007il', 'x\u202eyz', 'tab\u001b[2J'], []);
    const [candidates] = await hostile.complete('SELECT * FROM ');
    expect(candidates.join('')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(candidates).toEqual(['"ev␛]0;PWNED␇il"', '"x<U+202E>yz"', '"tab␛[2J"']);
    const [columns] = await new Completer(
      async () => [],
      [],
      async () => ['c\u009b31m'],
    ).complete('SELECT c');
    expect(columns).toContain('"c\ufffd31m"');
    expect(columns.join('')).not.toContain('\u009b');
  });

  it('completes backslash commands, and nothing (no error) where listing fails', async () => {
    expect(await completer.complete('\\ti')).toEqual([['\\timing'], '\\ti']);
    expect(await completer.complete('SELECT * FROM nope.x')).toEqual([[], 'nope.x']);
  });
});

describe('history', () => {
  it('never records a statement that may hold a secret', () => {
    expect(mayHoldSecret("CREATE USER eve PASSWORD 'x'")).toBe(true);
    expect(mayHoldSecret("ALTER USER eve IDENTIFIED BY 'x'")).toBe(true);
    expect(mayHoldSecret("SELECT * FROM t WHERE client_secret = 'x'")).toBe(true);
    expect(mayHoldSecret('SELECT name FROM users')).toBe(false);
    const dir = join(tempDir(), 'cfg');
    const h = new History(dir);
    expect(h.add("CREATE USER eve PASSWORD 'hunter2';")).toBe(false);
    expect(h.add('SELECT 1;')).toBe(true);
    expect(readFileSync(join(dir, HISTORY_FILE), 'utf8')).toBe('SELECT 1;\n');
  });

  it('writes the file 0600 in a 0700 folder, whatever was there, and loads newest first', () => {
    const dir = tempDir();
    const file = join(dir, HISTORY_FILE);
    writeFileSync(file, 'SELECT 1;\n', { mode: 0o644 });
    chmodSync(dir, 0o755);
    const h = new History(dir);
    h.add('SELECT 2;');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(h.load()).toEqual(['SELECT 2;', 'SELECT 1;']);
  });

  it(`keeps the last ${HISTORY_SIZE} entries`, () => {
    const dir = tempDir();
    const lines = Array.from({ length: HISTORY_SIZE + 5 }, (_, i) => `SELECT ${i};`);
    writeFileSync(join(dir, HISTORY_FILE), `${lines.join('\n')}\n`);
    const loaded = new History(dir).load();
    expect(loaded).toHaveLength(HISTORY_SIZE);
    expect(loaded[0]).toBe(`SELECT ${HISTORY_SIZE + 4};`);
    expect(readFileSync(join(dir, HISTORY_FILE), 'utf8').split('\n').filter(Boolean)).toHaveLength(
      HISTORY_SIZE,
    );
  });

  it('says once, and goes on, when the folder cannot be written', () => {
    const parent = tempDir();
    writeFileSync(join(parent, 'file'), '');
    const warnings: string[] = [];
    const h = new History(join(parent, 'file', 'cfg'), (m) => warnings.push(m));
    expect(h.add('SELECT 1;')).toBe(true);
    h.add('SELECT 2;');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/cannot keep the SQL history in .*: a part of the path is not a folder/);
  });
});

describe('vertical view and pager width', () => {
  it('prints one block a record, values aligned, exact numbers as written', () => {
    const schema = [
      { name: 'id', type: { name: 'BIGINT' } },
      { name: 'note', type: { name: 'VARCHAR' } },
    ];
    const rows = [
      { id: new JsonNumber('12345678901234567890'), note: 'a\nb' },
      { id: 2, note: null },
    ];
    expect(verticalView(schema, rows)).toBe(
      '-[ RECORD 1 ]---\nid   | 12345678901234567890\nnote | a\n     | b\n-[ RECORD 2 ]---\nid   | 2\nnote | \n',
    );
    expect(verticalView(schema, [])).toBe('(no rows)\n');
  });

  it('shows control and invisible characters in names and values visibly, keeping line feeds', () => {
    const schema = [{ name: 'n\u202eame', type: { name: 'VARCHAR' } }];
    const rows = [{ 'n\u202eame': 'x\u001b[2Jy\u200bz\nnext' }];
    expect(verticalView(schema, rows)).toBe(
      '-[ RECORD 1 ]----\nn<U+202E>ame | x\u241b[2Jy<U+200B>z\n' + `${' '.repeat(12)} | next\n`,
    );
  });

  it('measures lines without colour codes', () => {
    expect(widestLine('ab\n\u001b[31mabcd\u001b[39m\n')).toBe(4);
    // Wide characters take two columns each, as the terminal draws them.
    expect(widestLine('ab\n\u001b[1m表格\u001b[22m\n')).toBe(4);
  });
});

describe('\\d REF', () => {
  it('takes a catalog ref (with / or an id) or a name written the SQL way', () => {
    expect(describedRef('Samples/sales/2024.csv')).toEqual({
      kind: 'path',
      path: ['Samples', 'sales', '2024.csv'],
    });
    expect(describedRef('Samples.sales."2024.csv"')).toEqual({
      kind: 'path',
      path: ['Samples', 'sales', '2024.csv'],
    });
    expect(describedRef('"my.space"')).toEqual({ kind: 'path', path: ['my.space'] });
    const id = '0b0e6a34-7f4e-4b8b-9a53-3f1c2d9e8a10';
    expect(describedRef(id)).toEqual({ kind: 'id', id });
  });
});

describe('psql commands: arguments', () => {
  it('splits a command from its argument', () => {
    expect(parseMeta('  \\dt   Sales.*  ')).toEqual({ name: '\\dt', arg: 'Sales.*' });
    expect(parseMeta('\\x')).toEqual({ name: '\\x', arg: '' });
  });

  it('\\x toggles on and off, auto toggles to off, and refuses other values', () => {
    expect(parseExpanded('', 'off')).toBe('on');
    expect(parseExpanded('', 'on')).toBe('off');
    expect(parseExpanded('', 'auto')).toBe('off');
    expect(parseExpanded('AUTO', 'off')).toBe('auto');
    expect(parseExpanded('off', 'auto')).toBe('off');
    expect(() => parseExpanded('maybe', 'off')).toThrow(UsageError);
    expect(expandedMessage('auto')).toBe('Expanded display is used automatically.');
    expect(parseSwitch('\\timing', '', true)).toBe(false);
    expect(() => parseSwitch('\\timing', 'yes please', true)).toThrow('\\timing takes on or off');
  });

  it('\\watch takes seconds above 0 (2 by default); \\i takes a file name, quoted or not', () => {
    expect(parseWatchInterval('')).toBe(2);
    expect(parseWatchInterval('0.5')).toBe(0.5);
    for (const bad of ['0', '-1', 'abc', '1e3', '90000'])
      expect(() => parseWatchInterval(bad)).toThrow(UsageError);
    expect(parseFileArg('\\i', "'my file''s.sql'")).toBe("my file's.sql");
    expect(parseFileArg('\\i', 'setup.sql')).toBe('setup.sql');
    expect(() => parseFileArg('\\i', '')).toThrow('\\i needs a file name');
  });
});

describe('\\dt patterns and the tables a statement reads', () => {
  it('matches unquoted components as case-insensitive globs and quoted ones exactly', () => {
    const [schema, name] = patternParts('Sales."Q1*".x');
    expect(patternParts('Sales."Q1*".x')).toHaveLength(3);
    expect(matches(schema!, 'sales')).toBe(true);
    expect(matches(name!, 'Q1*')).toBe(true);
    expect(matches(name!, 'Q1 report')).toBe(false);
    expect(matches({ text: 'ord?rs*', quoted: false }, 'ORDERS_2024')).toBe(true);
    expect(matches({ text: 'a.b', quoted: false }, 'axb')).toBe(false);
    expect(patternParts('"a.b"."c""d"')).toEqual([
      { text: 'a.b', quoted: true },
      { text: 'c"d', quoted: true },
    ]);
  });

  it('finds the tables after FROM and JOIN, quoted names included, each once', () => {
    expect(
      tablesRead('select a from Shop.orders o join "Shop"."it\'s late" l on 1=1 JOIN shop.ORDERS x where b'),
    ).toEqual([
      ['Shop', 'orders'],
      ['Shop', "it's late"],
    ]);
    expect(tablesRead('SELECT 1')).toEqual([]);
  });
});

describe('\\dt: following a pattern down the catalog', () => {
  const item = (path: string[], kind: 'c' | 'view' | 'table') => ({
    id: path.join('/'),
    path,
    type: kind === 'c' ? 'CONTAINER' : 'DATASET',
    ...(kind === 'c' ? {} : { datasetType: kind === 'view' ? 'VIRTUAL' : 'PROMOTED' }),
  });
  const tree: Record<string, ReturnType<typeof item>[]> = {
    '[]': [item(['Shop'], 'c'), item(['Samples'], 'c')],
    '["Shop"]': [item(['Shop', 'eu'], 'c'), item(['Shop', 'orders'], 'view'), item(['Shop', 'us'], 'c')],
    '["Shop","eu"]': [item(['Shop', 'eu', 'returns'], 'view'), item(['Shop', 'eu', 'Q1.csv'], 'table')],
    '["Shop","us"]': [item(['Shop', 'us', 'returns'], 'table')],
  };
  const listed: string[] = [];
  const cache = {
    children: async (path: readonly string[]) => {
      listed.push(JSON.stringify(path));
      const found = tree[JSON.stringify(path)];
      if (!found) throw new Error('not found');
      return found;
    },
  } as unknown as CatalogCache;

  it('lists only the containers the pattern leads to, and quotes names as SQL does', async () => {
    listed.length = 0;
    expect(await findRelations(cache, 'shop.*.*')).toEqual([
      { schema: 'Shop.eu', name: '"Q1.csv"', type: 'table' },
      { schema: 'Shop.eu', name: 'returns', type: 'view' },
      { schema: 'Shop.us', name: 'returns', type: 'table' },
    ]);
    expect(listed).toEqual(['[]', '["Shop"]', '["Shop","eu"]', '["Shop","us"]']);
    listed.length = 0;
    expect(await findRelations(cache, 'Shop.e?.RET*')).toEqual([
      { schema: 'Shop.eu', name: 'returns', type: 'view' },
    ]);
    expect(listed).toEqual(['[]', '["Shop"]', '["Shop","eu"]']);
  });

  it('a one-part pattern (or none) looks in the context; a container that cannot be listed holds nothing', async () => {
    expect(await findRelations(cache, '', ['Shop'])).toEqual([
      { schema: 'Shop', name: 'orders', type: 'view' },
    ]);
    expect(await findRelations(cache, '')).toEqual([]);
    expect(await findRelations(cache, 'Gone.*')).toEqual([]);
  });
});

describe('the pager', () => {
  it('is $PAGER, else less; an empty PAGER is none; LESS=FRX when LESS is unset (as git)', () => {
    expect(pagerFor({})).toEqual({ command: 'less', env: { LESS: 'FRX' } });
    expect(pagerFor({ PAGER: 'less -S' })?.env.LESS).toBe('FRX');
    expect(pagerFor({ PAGER: 'less -S', LESS: 'S' })?.env.LESS).toBe('S');
    expect(pagerFor({ PAGER: 'more' })?.command).toBe('more');
    expect(pagerFor({ PAGER: '  ' })).toBeUndefined();
    // dlake's own variable first, as GH_PAGER is gh's.
    expect(pagerFor({ DLAKE_PAGER: 'most', PAGER: 'more' })?.command).toBe('most');
    expect(pagerFor({ DLAKE_PAGER: '', PAGER: 'more' })).toBeUndefined();
  });

  it('gets colour only when it is less told to show it', () => {
    expect(pagerTakesColour('less -S', { LESS: 'FRX' })).toBe(true);
    expect(pagerTakesColour('less -S', { LESS: '-S' })).toBe(false);
    expect(pagerTakesColour('less -SR', {})).toBe(true);
    expect(pagerTakesColour('/usr/bin/less --RAW-CONTROL-CHARS', {})).toBe(true);
    expect(pagerTakesColour('more', { LESS: 'FRX' })).toBe(false);
    expect(pagerTakesColour('most -R', {})).toBe(false);
  });

  it('is needed for text taller or wider than the screen, a line kept for the prompt', () => {
    expect(needsPager('a\nb\n', 80, 3)).toBe(false);
    expect(needsPager('a\nb\nc\n', 80, 3)).toBe(true);
    expect(needsPager(`${'x'.repeat(81)}\n`, 80, 30)).toBe(true);
    expect(needsPager('\u001b[1mab\u001b[22m\n', 2, 30)).toBe(false);
  });
});
