// The one reading of the command line before commander's (src/argv.ts): the launcher's code cache, the group
// the runtime loads and the options an early error obeys all come from it.
import { describe, expect, it } from 'vitest';
import { commandGroup, scanArgv } from '../../src/argv.js';
import { GLOBAL_OPTIONS } from '../../src/global-options.js';

const group = (...args: string[]) => commandGroup(scanArgv(args));

describe('scanArgv', () => {
  it('skips the value of a global option, wherever it is and however it is written', () => {
    // The profile's name is not the group: `job` is a group's name too.
    expect(group('-p', 'job', 'catalog', 'ls')).toBe('catalog');
    expect(group('--profile', 'job', 'catalog', 'ls')).toBe('catalog');
    expect(group('--profile=job', 'catalog', 'ls')).toBe('catalog');
    expect(group('-pjob', 'catalog', 'ls')).toBe('catalog');
    expect(group('-qp', 'job', 'catalog', 'ls')).toBe('catalog');
    expect(group('-o', 'json', 'user', 'list')).toBe('user');
    expect(group('--url', 'http://sql.example', '--timeout', '5s', 'sql', 'SELECT 1')).toBe('sql');
    expect(group('--edition', 'cloud', '--project-id', 'job', 'engine', 'list')).toBe('engine');
    expect(group('--json', '-v', 'catalog')).toBe('catalog');
    expect(scanArgv(['catalog', 'ls', '-p', 'job', 'Samples']).words).toEqual(['catalog', 'ls', 'Samples']);
  });

  it('takes every word after `--` as an operand', () => {
    const s = scanArgv(['-p', 'x', '--', '-p', 'catalog']);
    expect(s.words).toEqual(['-p', 'catalog']);
    expect(s.at).toEqual([3, 4]);
    expect(s.operandsFrom).toBe(2);
    expect([...s.globals]).toEqual(['--profile']);
    expect(scanArgv(['catalog', 'ls']).operandsFrom).toBe(2);
  });

  it('names the global options given, by their long name, before `--` only', () => {
    expect([...scanArgv(['-qv', '--no-color', 'x', '--', '--debug']).globals]).toEqual([
      '--quiet',
      '--verbose',
      '--no-color',
    ]);
    // A value is not an option, even when it looks like one.
    expect([...scanArgv(['--query', '-v', 'catalog']).globals]).toEqual(['--query']);
  });

  it('the group after `help`; none when nothing names one', () => {
    expect(group('help', 'catalog', 'ls')).toBe('catalog');
    expect(group('-p', 'x', 'help', 'job')).toBe('job');
    expect(group('-p', 'job')).toBeUndefined();
    expect(group()).toBeUndefined();
  });

  it('knows every global option that takes a value', () => {
    for (const { flags } of GLOBAL_OPTIONS) {
      const long = flags.split(/[ ,]+/).find((f) => f.startsWith('--'))!;
      const takesValue = flags.includes('<');
      expect(group(long, 'user', 'catalog'), flags).toBe(takesValue ? 'catalog' : 'user');
    }
  });
});
