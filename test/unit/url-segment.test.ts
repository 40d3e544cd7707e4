import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { segment, segmentProblem, segments } from '../../src/api/url-segment.js';
import { UsageError } from '../../src/errors.js';

describe('ids and names as URL path segments', () => {
  it('encodes each path component as one segment', () => {
    expect(segments(['Samples', 'a/b', 'file_with_?.json', 'x y#"%'], 'component')).toBe(
      'Samples/a%2Fb/file_with_%3F.json/x%20y%23%22%25',
    );
  });

  it('encodes an internal id as one segment', () => {
    expect(segment('service:/Samples/a b', 'catalog id')).toBe('service%3A%2FSamples%2Fa%20b');
  });

  it.each([
    ['', 'it is empty'],
    ['.', '"." would change'],
    ['..', '".." would change'],
    ['a\u0007b', 'control character'],
    ['bob\n', 'control character'],
    ['\u007f', 'control character'],
    ['\u0085', 'control character'],
  ])('refuses %j with a usage error that names it on one line', (value, why) => {
    let error: unknown;
    try {
      segment(value, 'job id');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as UsageError).message;
    expect(message).toContain(`invalid job id ${JSON.stringify(value)}`);
    expect(message).toContain(why);
    expect(message).not.toMatch(/[\n\r]/);
  });

  it('accepts dots inside a name and percent-encoded look-alikes of dot segments, encoded', () => {
    expect(segment('...', 'x')).toBe('...');
    expect(segment('a..b', 'x')).toBe('a..b');
    // `%2E%2E` as typed is not `..`: its `%` is encoded, so the service receives the text itself.
    expect(segment('%2E%2E', 'x')).toBe('%252E%252E');
  });

  it('gets every accepted value back from its segment, and a URL keeps the segment as it is', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme', minLength: 1 }).filter((v) => !segmentProblem(v)),
          { minLength: 1, maxLength: 5 },
        ),
        (p) => {
          const encoded = segments(p, 'component');
          expect(encoded.split('/').map(decodeURIComponent)).toEqual(p);
          // No dot segment or other normalisation: the path sent is the path built.
          expect(new URL(`http://h/api/${encoded}`).pathname).toBe(`/api/${encoded}`);
        },
      ),
    );
  });
});
