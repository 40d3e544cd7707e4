// `dlake help WORDS…`: the help of the command the words name, at any depth; an unknown word is exit 2. Help reads
// alike everywhere: a group without a verb prints its help (stdout, exit 0), every command's help lists the global
// options it inherits, an unknown verb names the nearest or the group's verbs, and `dlake version` exists.
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { GLOBAL_OPTIONS } from '../../src/global-options.js';
import { runCli } from '../../src/runtime.js';
import { nearest } from '../../src/util/nearest.js';
import { runInProcess } from '../helpers/in-process.js';

describe('dlake help', () => {
  it('shows the help of a verb, not of its group', async () => {
    const r = await runInProcess(['help', 'catalog', 'ls']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: dlake catalog ls\|list \[options\] \[ref\]/);
    const group = await runInProcess(['help', 'catalog']);
    expect(group.stdout).toMatch(/^Usage: dlake catalog \[options\] \[command\]/);
  });

  it('an unknown command: exit 2 with a suggestion when one is near', async () => {
    const unknown = await runInProcess(['help', 'nonexist']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/^error: unknown command 'nonexist' for 'dlake'$/m);
    expect(unknown.stderr).toContain('hint: run `dlake --help`');
    const typo = await runInProcess(['help', 'catalog', 'lss']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('(Did you mean dlake catalog ls?)');
    expect(typo.stderr).toMatch(/^usage: dlake catalog /m);
  });

  it('nearest names: within a few edits, else none', () => {
    expect(nearest('catalg', ['catalog', 'queue'])).toBe('catalog');
    expect(nearest('qeueu', ['catalog', 'queue'])).toBe('queue');
    expect(nearest('nonexist', ['catalog', 'queue'])).toBeUndefined();
    // Close for its length: one edit of a three-letter name is a typo, two are another word.
    expect(nearest('lss', ['ls', 'get'])).toBe('ls');
    expect(nearest('jbo', ['job', 'sql'])).toBe('job');
    expect(nearest('foo', ['job', 'sql', 'top', 'api'])).toBeUndefined();
    expect(nearest('catlog', ['catalog', 'pat'])).toBe('catalog');
  });

  it('`dlake foo` suggests no command: none is close', async () => {
    const r = await runInProcess(['foo']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: unknown command 'foo' for 'dlake'\n/);
    expect(r.stderr).not.toContain('Did you mean');
  });
});

describe('help reads alike', () => {
  it('a group without a verb prints its help to stdout, exit 0, as dlake alone does', async () => {
    for (const words of [['catalog'], ['job'], ['token', 'exchange'], ['queue']]) {
      const r = await runInProcess(words);
      expect([r.code, r.stderr], words.join(' ')).toEqual([0, '']);
      expect(r.stdout).toMatch(new RegExp(`^Usage: dlake ${words.join(' ')} \\[options\\] \\[command\\]`));
    }
    const root = await runInProcess([]);
    expect([root.code, root.stderr]).toEqual([0, '']);
  });

  it("every command's help lists its own options, then one line pointing to the global options", async () => {
    for (const words of [
      ['catalog', 'ls'],
      ['job', 'get'],
      ['sql'],
      ['token', 'exchange', 'pat'],
      ['catalog'],
      ['version'],
    ]) {
      const r = await runInProcess([...words, '--help']);
      expect(r.code).toBe(0);
      const label = words.join(' ');
      expect(r.stdout, label).not.toContain('Global Options:');
      expect(r.stdout, label).not.toContain('--ca-file');
      // Set apart by one blank line, whatever the command's help ended with.
      expect(r.stdout, label).toMatch(
        /\S\n\nGlobal options \(-o, --json, .*\): `dlake help global-options`\n$/,
      );
    }
  });

  it('`dlake`, `dlake --help` and `dlake help` print one layout: the commands first, the global options after', async () => {
    const [bare, flag, word] = await Promise.all([
      runInProcess([]),
      runInProcess(['--help']),
      runInProcess(['help']),
    ]);
    expect(flag.stdout).toBe(bare.stdout);
    expect(word.stdout).toBe(bare.stdout);
    const text = bare.stdout;
    expect(text).toMatch(/^Usage: dlake <command> \[options\]\n/);
    // As gh and kubectl: the commands come first; the global options follow them, by name only.
    const at = (needle: string) => text.indexOf(needle);
    expect(at('Authentication:\n  login ')).toBeGreaterThan(0);
    expect(at('Examples:\n')).toBeGreaterThan(at('\nOther:\n'));
    expect(at('Global options (`dlake help global-options` says what each does):')).toBeGreaterThan(
      at('Examples:'),
    );
    expect(text).not.toContain('Options:');
    expect(text).not.toContain('(env: DLAKE_PROFILE)');
    for (const { flags } of GLOBAL_OPTIONS) expect(text, flags).toContain(flags.replace(/ <[^>]+>$/, ''));
    // Each command named alone, as the registry has it, loaded or not.
    expect(text).toMatch(/^ {2}catalog +Browse/m);
  });

  it("no help line is wider than the terminal: 80 columns piped, the terminal's own on one", async () => {
    const { commands } = JSON.parse((await runInProcess(['describe', '-o', 'json'])).stdout) as {
      commands: { path: string[] }[];
    };
    const paths = [[], ...commands.map((c) => c.path)];
    for (const path of paths) {
      const r = await runInProcess([...path, '--help']);
      const wide = r.stdout.split('\n').filter((l) => width(l) > 80);
      expect(wide, path.join(' ')).toEqual([]);
    }
    // An example too wide is broken as a shell reads it: ` \` at the end, the rest indented, its comment above.
    const login = (await runInProcess(['login', '--help'])).stdout;
    expect(login).toContain(
      '  # hosted edition\n  $ dlake login --url https://api.dremio.cloud --project-id PROJECT_UUID \\\n     --token-stdin < pat.txt\n',
    );
    for (const columns of [60, 100]) {
      for (const path of [[], ['sql'], ['login'], ['catalog', 'create']]) {
        const text = await onTerminal([...path, '--help'], columns);
        const wide = text.split('\n').filter((l) => width(l) > columns);
        // A word longer than the terminal (a URL) is the one thing that cannot be broken.
        expect(
          wide.filter((l) => l.trim().includes(' ')),
          `${path.join(' ')} at ${columns}`,
        ).toEqual([]);
      }
    }
  });

  it('`dlake help global-options` lists every global option once, with its environment variable', async () => {
    const r = await runInProcess(['help', 'global-options']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const lines = r.stdout.split('\n');
    for (const { flags } of GLOBAL_OPTIONS)
      expect(
        lines.filter((l) => l.startsWith(`  ${flags} `)),
        flags,
      ).toHaveLength(1);
    expect(r.stdout).toContain('(env: DLAKE_PROFILE)');
    expect(r.stdout).not.toMatch(/--version|--help/);
    expect(Math.max(...r.stdout.split('\n').map(width))).toBeLessThanOrEqual(80);
  });

  it("a common command's help fits an 80×24 terminal; every command's examples stay on its screen", async () => {
    // Rows on an 80-column terminal (help is laid out for 80 columns when not on a terminal); 23 leave a row for
    // the prompt that follows.
    const rows = (text: string) =>
      text
        .trimEnd()
        .split('\n')
        .reduce((n, line) => n + Math.max(1, Math.ceil(width(line) / 80)), 0);
    for (const words of [
      ['whoami'],
      ['catalog', 'ls'],
      ['catalog', 'get'],
      ['catalog', 'tree'],
      ['job', 'get'],
      ['job', 'wait'],
      ['user', 'list'],
      ['reflection', 'list'],
      ['profile', 'list'],
      ['pat', 'create'],
    ]) {
      const r = await runInProcess([...words, '--help']);
      expect(rows(r.stdout), words.join(' ')).toBeLessThanOrEqual(23);
    }
    // A long one (sql has 16 options of its own): what is printed last, its examples, is what stays on screen.
    for (const words of [['sql'], ['job', 'export'], ['login'], ['user', 'create'], ['source', 'create']]) {
      const r = await runInProcess([...words, '--help']);
      const examples = r.stdout.slice(r.stdout.indexOf('\nExamples:\n'));
      expect(examples, words.join(' ')).toMatch(/^\nExamples:\n {2}(\$ dlake |# )/);
      expect(rows(examples), words.join(' ')).toBeLessThanOrEqual(23);
    }
  });

  it('dlake version prints the version, the build and the Node.js that runs it; -o json the same as data', async () => {
    const r = await runInProcess(['version']);
    // From the sources (no build inlined its commit): the build says so.
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      `dlake version ${pkg.version} (sources)\nNode.js ${process.version} on ${process.platform}-${process.arch}\n`,
      '',
    ]);
    const json = await runInProcess(['version', '-o', 'json']);
    expect(JSON.parse(json.stdout)).toEqual({
      version: pkg.version,
      build: 'sources',
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    });
  });

  it("an unknown verb: exit 2, the nearest verb, or else the group's verbs", async () => {
    const list = await runInProcess(['job', 'show']);
    expect(list.code).toBe(2);
    expect(list.stdout).toBe('');
    expect(list.stderr).toMatch(
      /^error: unknown command 'show' for 'dlake job'\ndlake job has: list, get, why, profile, wait, cancel, results, export\n/,
    );
    const typo = await runInProcess(['catalog', 'lss']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      "error: unknown command 'lss' for 'dlake catalog'\n(Did you mean dlake catalog ls?)\n",
    );
    const top = await runInProcess(['catlog']);
    expect(top.stderr).toContain('(Did you mean dlake catalog?)');
  });
});

/** Columns a line takes (the help is plain text: one column a character). */
const width = (line: string) => [...line].length;

/** What dlake prints on stdout when stdout is a terminal of `columns` columns. */
async function onTerminal(args: string[], columns: number): Promise<string> {
  let text = '';
  const terminal = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  Object.assign(terminal, { isTTY: true, columns });
  const quiet = new Writable({ write: (_c, _e, done) => done() });
  const streams = {
    stdin: Readable.from([]) as unknown as NodeJS.ReadStream,
    stdout: terminal as unknown as NodeJS.WriteStream,
    stderr: quiet as unknown as NodeJS.WriteStream,
  };
  await runCli(['node', 'dlake', ...args], { env: { NO_COLOR: '1' }, streams });
  return text;
}
