import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import {
  formatPath,
  parsePath,
  parseRef,
  parseRefWithId,
  toSqlIdentifier,
} from '../../src/util/catalog-ref.js';

const UUID = '2f2a3b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b';

describe('parseRef', () => {
  it('reads a UUID as an id, whatever its case', () => {
    expect(parseRef(UUID)).toEqual({ kind: 'id', id: UUID });
    expect(parseRef(UUID.toUpperCase())).toEqual({ kind: 'id', id: UUID.toUpperCase() });
  });

  it.each([
    ['Sales', ['Sales']],
    ['space/folder/dataset', ['space', 'folder', 'dataset']],
    ['Sales/"a/b"', ['Sales', 'a/b']],
    ['Sales/top "best".v2', ['Sales', 'top "best".v2']],
    ['Sales/"top ""best"".v2"', ['Sales', 'top "best".v2']],
    ['Samples/samples.example.com/zips.json', ['Samples', 'samples.example.com', 'zips.json']],
    ['My Space/a b c', ['My Space', 'a b c']],
    ['a/""/b', ['a', '', 'b']],
    ['"""quoted"""', ['"quoted"']],
    ['"a/b"/"c/d"', ['a/b', 'c/d']],
    ['é/日本/%20?#', ['é', '日本', '%20?#']],
    ['ab"', ['ab"']],
    // One leading and one trailing slash are tolerated.
    ['/Sales/x', ['Sales', 'x']],
    ['Sales/x/', ['Sales', 'x']],
    ['/Sales/"a/b"/', ['Sales', 'a/b']],
    [`${UUID}/x`, [UUID, 'x']],
  ])('reads %s as a path', (input, path) => {
    expect(parseRef(input)).toEqual({ kind: 'path', path });
  });

  it.each([
    ['', /empty catalog path/],
    ['/', /empty catalog path/],
    ['a//b', /empty component.*position 3/],
    ['//a', /empty component.*position 2/],
    ['a//', /empty component/],
    ['Sales/"ab', /never closed.*position 7/],
    ['"a""', /never closed.*position 1/],
    ['Sales/"a"b/c', /closing quote must be followed by \/.*position 10/],
  ])('refuses %j', (input, why) => {
    let error: unknown;
    try {
      parseRef(input);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(why);
  });

  it('points a caret at the error', () => {
    expect(() => parsePath('Sales/"ab')).toThrow(
      expect.objectContaining({ details: ['Sales/"ab', '      ^'] }) as unknown as Error,
    );
  });
});

describe('parseRefWithId', () => {
  it('makes any text an id with --id', () => {
    expect(parseRefWithId('service:/Samples/a b', true)).toEqual({ kind: 'id', id: 'service:/Samples/a b' });
    expect(parseRefWithId('Sales/x', false)).toEqual({ kind: 'path', path: ['Sales', 'x'] });
    expect(() => parseRefWithId('', true)).toThrow(UsageError);
  });
});

describe('formatPath', () => {
  it.each([
    [['Sales', 'a/b'], 'Sales/"a/b"'],
    [['Sales', 'top "best".v2'], 'Sales/top "best".v2'],
    [['Sales', '"quoted"'], 'Sales/"""quoted"""'],
    [['a', '', 'b'], 'a/""/b'],
    [['My Space', 'x.y'], 'My Space/x.y'],
    // A lone UUID-looking name is quoted, or it would be read back as an id.
    [[UUID], `"${UUID}"`],
    [[UUID, 'x'], `${UUID}/x`],
  ])('prints %j as %s', (path, text) => {
    expect(formatPath(path)).toBe(text);
  });
});

describe('SQL names', () => {
  it.each([
    [['Sales', 'orders'], 'Sales.orders'],
    [['My Space', 'top "best".v2'], '"My Space"."top ""best"".v2"'],
    [['_a1', '1a', 'é'], '_a1."1a"."é"'],
  ])('prints %j as the SQL name %s', (path, sql) => {
    expect(toSqlIdentifier(path)).toBe(sql);
  });
});

// Components made of the characters that matter to the syntax, mixed with ordinary and non-ASCII text.
const component = fc
  .array(fc.constantFrom('a', 'Z', '0', '.', ' ', '/', '"', '%', '#', '?', 'é', '日', '😀', '-', '_', ':'), {
    maxLength: 8,
  })
  .map((chars) => chars.join(''));
const path = fc.array(component, { minLength: 1, maxLength: 5 });

describe('path properties', () => {
  it('parses every printed path back to the same components', () => {
    fc.assert(
      fc.property(path, (p) => {
        expect(parseRef(formatPath(p))).toEqual({ kind: 'path', path: p });
      }),
    );
  });

  it('prints every canonical path string exactly as it was written', () => {
    fc.assert(
      fc.property(path, (p) => {
        const canonical = formatPath(p);
        const parsed = parseRef(canonical);
        expect(parsed.kind).toBe('path');
        expect(formatPath((parsed as { path: string[] }).path)).toBe(canonical);
      }),
    );
  });

  it('either parses or throws a UsageError, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '/', '"', ' ', '.') }), (text) => {
        try {
          parseRef(text);
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError);
        }
      }),
    );
  });
});
