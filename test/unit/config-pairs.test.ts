// `--set key=value` pairs coerced by a field list. The field lists here are small stand-ins for source types
// (the real ones are src/api/source-types.ts's, checked against these rules in source-types.test.ts): this
// test stays in the bottom layer, as the module does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import {
  applySetPairs,
  type ConfigField,
  type ConfigFields,
  parseSetPair,
} from '../../src/util/config-pairs.js';
import { thrown } from '../helpers/thrown.js';

const DB: ConfigFields = {
  code: 'DB',
  fields: [
    { name: 'hostname', type: 'string' },
    { name: 'port', type: 'number' },
    { name: 'fetchSize', type: 'number' },
    { name: 'authenticationType', type: 'string', enum: ['ANONYMOUS', 'MASTER'] },
    { name: 'password', type: 'string', secret: true },
  ],
};
const STORE: ConfigFields = {
  code: 'STORE',
  fields: [
    { name: 'secure', type: 'boolean' },
    { name: 'externalBucketList', type: 'string[]' },
    { name: 'propertyList', type: 'propertyList' },
  ],
};
const SEARCH: ConfigFields = {
  code: 'SEARCH',
  fields: [
    { name: 'hostList', type: 'hostList' },
    { name: 'readTimeoutMillis', type: 'number' },
    { name: 'scrollTimeoutMillis', type: 'number' },
  ],
};
const NAS: ConfigFields = {
  code: 'NAS',
  fields: [
    { name: 'path', type: 'string' },
    { name: 'allowCreateDrop', type: 'boolean' },
  ],
};

const usageError = (fn: () => unknown) => thrown(fn, UsageError);

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
    const out = applySetPairs(DB, base, [
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
    expect(applySetPairs(STORE, {}, [`secure=${text}`])).toEqual({ secure: value });
  });

  it('refuses non-numeric numbers and non-boolean booleans', () => {
    expect(usageError(() => applySetPairs(DB, {}, ['port=abc'])).message).toBe(
      '--set port: "abc" is not a number',
    );
    expect(usageError(() => applySetPairs(STORE, {}, ['secure=maybe'])).message).toMatch(/not a boolean/);
  });

  it('takes human durations for fields counted in milliseconds', () => {
    expect(applySetPairs(SEARCH, {}, ['readTimeoutMillis=90s', 'scrollTimeoutMillis=300000'])).toEqual({
      readTimeoutMillis: 90_000,
      scrollTimeoutMillis: 300_000,
    });
    expect(() => applySetPairs(SEARCH, {}, ['readTimeoutMillis=soon'])).toThrow(UsageError);
  });

  it('reads string lists as comma-separated text or JSON', () => {
    expect(applySetPairs(STORE, {}, ['externalBucketList=a, b,c'])).toEqual({
      externalBucketList: ['a', 'b', 'c'],
    });
    expect(applySetPairs(STORE, {}, ['externalBucketList=["a,b","c"]'])).toEqual({
      externalBucketList: ['a,b', 'c'],
    });
    expect(applySetPairs(STORE, {}, ['externalBucketList='])).toEqual({ externalBucketList: [] });
    expect(() => applySetPairs(STORE, {}, ['externalBucketList=[1,2]'])).toThrow(/list of strings/);
    expect(() => applySetPairs(STORE, {}, ['externalBucketList=[oops'])).toThrow(/invalid JSON/);
  });

  it('reads host lists as host:port pairs or JSON', () => {
    expect(applySetPairs(SEARCH, {}, ['hostList=es1:9200, es2:9201,[::1]:9202'])).toEqual({
      hostList: [
        { hostname: 'es1', port: 9200 },
        { hostname: 'es2', port: 9201 },
        { hostname: '::1', port: 9202 },
      ],
    });
    expect(applySetPairs(SEARCH, {}, ['hostList=[{"hostname":"m","port":27017}]'])).toEqual({
      hostList: [{ hostname: 'm', port: 27017 }],
    });
    expect(applySetPairs(SEARCH, {}, ['hostList={"hostname":"m","port":27017}'])).toEqual({
      hostList: [{ hostname: 'm', port: 27017 }],
    });
    expect(usageError(() => applySetPairs(SEARCH, {}, ['hostList=es1'])).message).toMatch(/host:port/);
  });

  it('adds or replaces one property with propertyList.NAME=VALUE', () => {
    const base = {
      propertyList: [
        { name: 'fs.s3a.endpoint', value: 'http://old' },
        { name: 'keep', value: 'me' },
      ],
    };
    const out = applySetPairs(STORE, base, ['propertyList.fs.s3a.endpoint=http://x', 'propertyList.new=v=1']);
    expect(out.propertyList).toEqual([
      { name: 'fs.s3a.endpoint', value: 'http://x' },
      { name: 'keep', value: 'me' },
      { name: 'new', value: 'v=1' },
    ]);
    expect(base.propertyList[0]!.value).toBe('http://old');
    expect(applySetPairs(STORE, {}, ['propertyList.a=b'])).toEqual({
      propertyList: [{ name: 'a', value: 'b' }],
    });
  });

  it('replaces the whole property list from JSON', () => {
    expect(
      applySetPairs(STORE, { propertyList: [{ name: 'x', value: 'y' }] }, [
        'propertyList=[{"name":"a","value":"b"}]',
      ]),
    ).toEqual({
      propertyList: [{ name: 'a', value: 'b' }],
    });
    expect(usageError(() => applySetPairs(STORE, {}, ['propertyList=a'])).hint).toMatch(
      /propertyList\.NAME=VALUE/,
    );
  });

  it('refuses an unknown key and lists the fields of the type', () => {
    const error = usageError(() => applySetPairs(NAS, {}, ['paht=/x']));
    expect(error.message).toBe('--set paht: NAS has no config field "paht"');
    expect(error.details).toEqual(['fields of NAS:', '  path (string)', '  allowCreateDrop (boolean)']);
    expect(usageError(() => applySetPairs(DB, {}, ['HostName=x'])).hint).toBe('did you mean hostname?');
    expect(usageError(() => applySetPairs(DB, {}, ['hostname.x=1'])).message).toMatch(/no config field/);
  });

  it('refuses secrets: they never come from the command line', () => {
    const error = usageError(() => applySetPairs(DB, {}, ['password=hunter2']));
    expect(error.message).toMatch(/password is a secret/);
    expect(error.message).not.toMatch(/hunter2/);
  });

  it('names the allowed values of a field with a closed set among the fields listed', () => {
    expect(usageError(() => applySetPairs(DB, {}, ['auth=MASTER'])).details).toContain(
      '  authenticationType (ANONYMOUS | MASTER)',
    );
  });

  it('throws nothing but UsageError, whatever the input', () => {
    const types = [DB, STORE, SEARCH, NAS];
    const fieldNames = [...new Set(types.flatMap((t) => t.fields.map((f: ConfigField) => f.name)))];
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
      fc.property(fc.constantFrom(...types), fc.array(pair, { maxLength: 4 }), (info, pairs) => {
        try {
          const out = applySetPairs(info, {}, pairs);
          expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
