// `dlake help WORDS…`: the help of the command the words name, at any depth; an unknown word is exit 2.
import { describe, expect, it } from 'vitest';
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
    expect(unknown.stderr).toMatch(/^error: unknown command 'nonexist'$/m);
    expect(unknown.stderr).toContain('hint: run `dlake --help`');
    const typo = await runInProcess(['help', 'catalog', 'lss']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('(Did you mean ls?)');
    expect(typo.stderr).toMatch(/^usage: dlake catalog /m);
  });

  it('nearest names: within a few edits, else none', () => {
    expect(nearest('catalg', ['catalog', 'queue'])).toBe('catalog');
    expect(nearest('qeueu', ['catalog', 'queue'])).toBe('queue');
    expect(nearest('nonexist', ['catalog', 'queue'])).toBeUndefined();
  });
});
