import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SOURCE_TYPES } from '../../src/api/source-types.js';
import { applySetPairs, parseSetPair } from '../../src/commands/source/set-pairs.js';
import { UsageError } from '../../src/errors.js';

function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error('expected a UsageError');
}

describe('parseSetPair', () => {
  it('splits at the first =', () => {
    expect(parseSetPair('port=5432')).toEqual({ key: 'port', value: '5432' });
    expect(parseSetPair('propertyList.a=b=c')).toEqual({ key: 'propertyList.a', value: 'b=c' });
    expect(parseSetPair('rootPath=')).toEqual({ key: 'rootPath', value: '' });
  });

  it('refuses a pair without = or without a key', () => {
    expect(usageError(() => parseSetPair('port')).message).toMatch(/"port" has no "="/);
    expect(usageError(() => parseSetPair('=5')).message).toMatch(/no key/);
  });
});

describe('applySetPairs', () => {
  it('coerces numbers and booleans by field type, and leaves the base untouched', () => {
    const base = { hostname: 'old' };
    const out = applySetPairs('POSTGRES', base, [
      'hostname=db',
      'port=5432',
      'fetchSize=0',
      'authenticationType=MASTER',
    ]);
    expect(out).toEqual({ hostname: 'db', port: 5432, fetchSize: 0, authenticationType: 'MASTER' });
    expect(base).toEqual({ hostname: 'old' });
  });

  it.each([
    ['true', true],
    ['FALSE', false],
    ['yes', true],
    ['No', false],
    ['1', true],
    ['0', false],
  ])('reads the boolean %s as %s', (text, value) => {
    expect(applySetPairs('S3', {}, [`secure=${text}`])).toEqual({ secure: value });
  });

  it('refuses non-numeric numbers and non-boolean booleans', () => {
    expect(usageError(() => applySetPairs('MYSQL', {}, ['port=abc'])).message).toBe(
      '--set port: "abc" is not a number',
    );
    expect(usageError(() => applySetPairs('S3', {}, ['secure=maybe'])).message).toMatch(/not a boolean/);
  });

  it('takes human durations for fields counted in milliseconds', () => {
    expect(applySetPairs('ELASTIC', {}, ['readTimeoutMillis=90s', 'scrollTimeoutMillis=300000'])).toEqual({
      readTimeoutMillis: 90_000,
      scrollTimeoutMillis: 300_000,
    });
    expect(() => applySetPairs('ELASTIC', {}, ['readTimeoutMillis=soon'])).toThrow(UsageError);
  });

  it('reads string lists as comma-separated text or JSON', () => {
    expect(applySetPairs('S3', {}, ['externalBucketList=a, b,c'])).toEqual({
      externalBucketList: ['a', 'b', 'c'],
    });
    expect(applySetPairs('S3', {}, ['externalBucketList=["a,b","c"]'])).toEqual({
      externalBucketList: ['a,b', 'c'],
    });
    expect(applySetPairs('S3', {}, ['externalBucketList='])).toEqual({ externalBucketList: [] });
    expect(() => applySetPairs('S3', {}, ['externalBucketList=[1,2]'])).toThrow(/list of strings/);
    expect(() => applySetPairs('S3', {}, ['externalBucketList=[oops'])).toThrow(/invalid JSON/);
  });

  it('reads host lists as host:port pairs or JSON', () => {
    expect(applySetPairs('ELASTIC', {}, ['hostList=es1:9200, es2:9201,[::1]:9202'])).toEqual({
      hostList: [
        { hostname: 'es1', port: 9200 },
        { hostname: 'es2', port: 9201 },
        { hostname: '::1', port: 9202 },
      ],
    });
    expect(applySetPairs('MONGO', {}, ['hostList=[{"hostname":"m","port":27017}]'])).toEqual({
      hostList: [{ hostname: 'm', port: 27017 }],
    });
    expect(applySetPairs('MONGO', {}, ['hostList={"hostname":"m","port":27017}'])).toEqual({
      hostList: [{ hostname: 'm', port: 27017 }],
    });
    expect(usageError(() => applySetPairs('ELASTIC', {}, ['hostList=es1'])).message).toMatch(/host:port/);
  });

  it('adds or replaces one property with propertyList.NAME=VALUE', () => {
    const base = {
      propertyList: [
        { name: 'fs.s3a.endpoint', value: 'http://old' },
        { name: 'keep', value: 'me' },
      ],
    };
    const out = applySetPairs('S3', base, ['propertyList.fs.s3a.endpoint=http://x', 'propertyList.new=v=1']);
    expect(out.propertyList).toEqual([
      { name: 'fs.s3a.endpoint', value: 'http://x' },
      { name: 'keep', value: 'me' },
      { name: 'new', value: 'v=1' },
    ]);
    expect(base.propertyList[0]!.value).toBe('http://old');
    expect(applySetPairs('HDFS', {}, ['propertyList.a=b'])).toEqual({
      propertyList: [{ name: 'a', value: 'b' }],
    });
  });

  it('replaces the whole property list from JSON', () => {
    expect(
      applySetPairs('S3', { propertyList: [{ name: 'x', value: 'y' }] }, [
        'propertyList=[{"name":"a","value":"b"}]',
      ]),
    ).toEqual({
      propertyList: [{ name: 'a', value: 'b' }],
    });
    expect(usageError(() => applySetPairs('S3', {}, ['propertyList=a'])).hint).toMatch(
      /propertyList\.NAME=VALUE/,
    );
  });

  it('refuses an unknown key and lists the fields of the type', () => {
    const error = usageError(() => applySetPairs('NAS', {}, ['paht=/x']));
    expect(error.message).toBe('--set paht: NAS has no config field "paht"');
    expect(error.details).toEqual(['fields of NAS:', '  path (string)', '  allowCreateDrop (boolean)']);
    expect(usageError(() => applySetPairs('POSTGRES', {}, ['HostName=x'])).hint).toBe(
      'did you mean hostname?',
    );
    expect(usageError(() => applySetPairs('POSTGRES', {}, ['hostname.x=1'])).message).toMatch(
      /no config field/,
    );
  });

  it('refuses secrets: they never come from the command line', () => {
    const error = usageError(() => applySetPairs('POSTGRES', {}, ['password=hunter2']));
    expect(error.message).toMatch(/password is a secret/);
    expect(error.message).not.toMatch(/hunter2/);
  });

  it('refuses an unknown source type', () => {
    expect(usageError(() => applySetPairs('FOO', {}, ['a=b'])).message).toMatch(/unknown source type "FOO"/);
  });

  it('throws nothing but UsageError, whatever the input', () => {
    const types = Object.keys(SOURCE_TYPES);
    const fieldNames = [...new Set(Object.values(SOURCE_TYPES).flatMap((t) => t.fields.map((f) => f.name)))];
    const key = fc.oneof(
      fc.constantFrom(...fieldNames),
      fc.constantFrom(...fieldNames).map((name) => `${name}.x`),
      fc.string(),
      fc.constantFrom('__proto__', 'constructor', 'propertyList.__proto__'),
    );
    const value = fc.oneof(
      fc.string(),
      fc.json(),
      fc.constantFrom('[', '{', '[1]', 'a:1', '[::1]:9', '1e999'),
    );
    const pair = fc.oneof(
      fc.tuple(key, value).map(([k, v]) => `${k}=${v}`),
      fc.string(),
    );
    fc.assert(
      fc.property(fc.constantFrom(...types, 'FOO'), fc.array(pair, { maxLength: 4 }), (type, pairs) => {
        try {
          const out = applySetPairs(type, {}, pairs);
          expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
