import { Command, type CommandUnknownOpts, type Option } from '@commander-js/extra-typings';
import { describe, expect, it } from 'vitest';
import {
  choiceOption,
  concurrencyOption,
  duration,
  email,
  MAX_CONCURRENCY,
  repeatable,
  size,
  wholeNumber,
} from '../../src/commands/options.js';
import { queueFields } from '../../src/commands/queue/fields.js';
import { registerGroups } from '../../src/commands/registry.js';
import { UsageError } from '../../src/errors.js';
import { buildRoot, Runtime } from '../../src/runtime.js';

describe('option parsers', () => {
  it('whole numbers: range, and too large said as such', () => {
    const n = wholeNumber('--limit', { min: 1, max: 500 });
    expect(n(' 42 ')).toBe(42);
    expect(() => n('0')).toThrow('--limit must be a whole number from 1 to 500, not "0"');
    expect(() => n('2.5')).toThrow(/not "2.5"/);
    expect(() => n('501')).toThrow('--limit "501" is too large: at most 500');
    expect(() => wholeNumber('--max-rows')('99999999999999999999')).toThrow(/is too large/);
    expect(() => wholeNumber('--max-rows')('-1')).toThrow(UsageError);
  });

  it('sizes and durations name the flag', () => {
    expect(size('--max-memory-per-node')('8GiB')).toBe(8 * 1024 ** 3);
    expect(() => size('--max-memory-per-node')('8 gigs')).toThrow(/^--max-memory-per-node: invalid size/);
    expect(duration('--wait-timeout')('15m')).toBe(900_000);
    expect(() => duration('--wait-timeout')('0s')).toThrow('--wait-timeout must be longer than 0');
    expect(duration('--expires', { positive: false })('0s')).toBe(0);
  });

  it('repeatable values keep order, split commas when told, and refuse empty values', () => {
    const tags = repeatable('--set');
    expect(tags('b', tags('a', undefined))).toEqual(['a', 'b']);
    expect(() => tags('', undefined)).toThrow('--set needs a value, not ""');
    expect(() => tags('  ', undefined)).toThrow(UsageError);
    const attrs = repeatable('--include', { commas: true });
    expect(attrs('a,b', ['x'])).toEqual(['x', 'a', 'b']);
    expect(() => attrs('a,,b', undefined)).toThrow(UsageError);
  });

  it('closed sets match case-insensitively, keep the canonical spelling, and stay visible to completion', async () => {
    const cmd = new Command()
      .exitOverride()
      .addOption(choiceOption('--cpu-tier <tier>', 'tier', ['LOW', 'HIGH']))
      .action(() => {});
    await cmd.parseAsync(['--cpu-tier', 'high'], { from: 'user' });
    expect(cmd.opts().cpuTier).toBe('HIGH');
    expect(cmd.options[0]?.argChoices).toEqual(['LOW', 'HIGH']);
    await expect(cmd.parseAsync(['--cpu-tier', 'urgent'], { from: 'user' })).rejects.toThrow(
      '--cpu-tier "urgent" is not one of: LOW, HIGH',
    );
  });

  it('one concurrency limit', () => {
    const parse = concurrencyOption('requests', 4).parseArg as (v: string, p: unknown) => number;
    expect(parse(String(MAX_CONCURRENCY), undefined)).toBe(MAX_CONCURRENCY);
    expect(() => parse(String(MAX_CONCURRENCY + 1), undefined)).toThrow(/too large: at most 32/);
  });

  it('e-mail addresses', () => {
    expect(email('--email')('bob@example.com')).toBe('bob@example.com');
    for (const bad of ['notanemail', 'bob@', '@example.com', 'bob@@x', 'a b@x.com', 'bob@x.']) {
      expect(() => email('--email')(bad), bad).toThrow(/is not an e-mail address/);
    }
  });
});

describe('the command tree uses these parsers', () => {
  /** Every option of every command, with the command's words. */
  async function allOptions(): Promise<{ words: string; option: Option }[]> {
    const rt = new Runtime({ env: {}, streams: process });
    const program = buildRoot(rt);
    await registerGroups(program, rt, 'all');
    const found: { words: string; option: Option }[] = [];
    const visit = (cmd: CommandUnknownOpts, words: string[]): void => {
      for (const option of cmd.options) found.push({ words: words.join(' '), option });
      for (const sub of cmd.commands) visit(sub, [...words, sub.name()]);
    };
    visit(program, []);
    return found;
  }
  const parse = (o: Option, v: string) => (o.parseArg as (v: string, p: unknown) => unknown)(v, undefined);

  it('every --concurrency has the one limit', async () => {
    const all = (await allOptions()).filter((o) => o.option.long === '--concurrency');
    // catalog tree, job results, job export, sql at least.
    expect(all.map((o) => o.words)).toEqual(
      expect.arrayContaining(['catalog tree', 'job results', 'job export', 'sql']),
    );
    for (const { words, option } of all) {
      expect(parse(option, String(MAX_CONCURRENCY)), words).toBe(MAX_CONCURRENCY);
      expect(() => parse(option, String(MAX_CONCURRENCY + 1)), words).toThrow(/too large: at most 32/);
    }
  });

  it('every --format of an export takes parquet in any case', async () => {
    const all = (await allOptions()).filter((o) => o.option.long === '--format');
    expect(all.map((o) => o.words)).toEqual(expect.arrayContaining(['job export', 'sql']));
    for (const { words, option } of all) {
      expect(parse(option, 'PARQUET'), words).toBe('parquet');
      expect(() => parse(option, 'xlsx'), words).toThrow(
        '--format "xlsx" is not one of: csv, json, ndjson, parquet',
      );
    }
  });

  it('every repeatable option refuses an empty value', async () => {
    const all = await allOptions();
    const repeatables = all.filter(
      ({ words, option }) =>
        /repeatable/.test(option.description) ||
        (words === 'reflection create' && /<fields>/.test(option.flags)),
    );
    expect(repeatables.map((o) => `${o.words} ${o.option.long}`)).toEqual(
      expect.arrayContaining([
        'role add-member --user',
        'role remove-member --role',
        'catalog grants --grant',
        'catalog grants --revoke',
        'user create --role',
        'reflection create --display',
        'reflection summary --filter',
      ]),
    );
    for (const { words, option } of repeatables) {
      expect(() => parse(option, ''), `${words} ${option.long}`).toThrow(/needs a value/);
    }
    const display = repeatables.find((o) => o.words === 'reflection create' && o.option.long === '--display');
    expect(parse(display!.option, 'a,b')).toEqual(['a', 'b']);
    expect(() => parse(display!.option, 'a,,b')).toThrow('--display needs a value, not "a,,b"');
  });

  it('reflection create --type is a closed set in any case', async () => {
    const type = (await allOptions()).find(
      (o) => o.words === 'reflection create' && o.option.long === '--type',
    );
    expect(parse(type!.option, 'RAW')).toBe('raw');
    expect(() => parse(type!.option, 'cube')).toThrow('--type "cube" is not one of: raw, aggregation');
  });
});

describe('queue options in human units', () => {
  it('turns sizes, durations and counts into the API numbers', () => {
    expect(
      queueFields({
        maxMemoryPerNode: '8GiB',
        maxQueryMemoryPerNode: '512MiB',
        maxRunningJobs: '4',
        maxStartTimeout: '90s',
        maxRunTimeout: '15m',
      }),
    ).toEqual({
      name: undefined,
      cpuTier: undefined,
      maxMemoryPerNodeBytes: 8_589_934_592,
      maxQueryMemoryPerNodeBytes: 536_870_912,
      maxAllowedRunningJobs: 4,
      maxStartTimeoutMs: 90_000,
      maxRunTimeoutMs: 900_000,
    });
  });

  it('names the option whose value does not parse', () => {
    expect(() => queueFields({ maxMemoryPerNode: '8 gigs' })).toThrow(/^--max-memory-per-node: invalid size/);
    expect(() => queueFields({ maxRunTimeout: 'soon' })).toThrow(/^--max-run-timeout: invalid duration/);
    expect(() => queueFields({ maxRunningJobs: '2.5' })).toThrow(
      /^--max-running-jobs must be a whole number/,
    );
    expect(() => queueFields({ maxRunningJobs: '-1' })).toThrow(UsageError);
  });
});
