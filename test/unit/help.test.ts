// `dlake help WORDS…`: the help of the command the words name, at any depth; an unknown word is exit 2. Help reads
// alike everywhere: a group without a verb prints its help (stdout, exit 0), every command's help lists the global
// options it inherits, an unknown verb names the nearest or the group's verbs, and `dlake version` exists.
import { describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { nearest } from '../../src/util/nearest.js';
import { runInProcess } from '../helpers/in-process.js';

describe('dlake help', () => {
  it('shows the help of a verb, not of its group', async () => {
    const r = await runInProcess(['help', 'catalog', 'ls']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: dlake catalog ls \[options\] \[ref\]/);
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

  it("every command's help lists the global options it inherits", async () => {
    for (const words of [
      ['catalog', 'ls'],
      ['job', 'get'],
      ['sql'],
      ['token', 'exchange', 'pat'],
      ['catalog'],
    ]) {
      const r = await runInProcess([...words, '--help']);
      expect(r.code).toBe(0);
      const global = r.stdout.split('Global Options:\n')[1] ?? '';
      expect(global, words.join(' ')).toMatch(/^ {2}-p, --profile <name>/);
      for (const flag of ['--url <url>', '-o, --output <format>', '--timeout <duration>', '--debug'])
        expect(global, `${words.join(' ')}: ${flag}`).toContain(flag);
    }
  });

  it('dlake version prints the version, as --version does', async () => {
    const r = await runInProcess(['version']);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, `${pkg.version}\n`, '']);
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
