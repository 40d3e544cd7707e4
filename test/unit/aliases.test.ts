// `ls` and `list` are one verb wherever a command lists (as gh and kubectl users type either): every `list`
// answers to `ls`, and `catalog ls` to `list`.
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';

describe('ls and list', () => {
  it('every list command answers to ls, and catalog ls to list', async () => {
    const { commands } = JSON.parse((await runInProcess(['describe', '-o', 'json'])).stdout) as {
      commands: { path: string[]; aliases: string[] }[];
    };
    const lists = commands.filter((c) => ['list', 'ls'].includes(c.path.at(-1)!));
    expect(lists.length).toBeGreaterThan(10);
    for (const c of lists)
      expect(c.aliases, c.path.join(' ')).toContain(c.path.at(-1) === 'list' ? 'ls' : 'list');
  });

  it.each([
    ['job', 'ls'],
    ['user', 'ls'],
    ['catalog', 'list'],
  ])('dlake %s %s --help is the help of the list command', async (group, verb) => {
    const r = await runInProcess([group, verb, '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: dlake ${group} (list\\|ls|ls\\|list) `));
  });
});
