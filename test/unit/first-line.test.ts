// The one line an error shows (src/util/first-line.ts): the credential store's clients and the service's error
// answers (src/api/errors.ts) alike.
import { expect, it } from 'vitest';
import { firstLine } from '../../src/util/first-line.js';

it("an error's message or a text: its first line, without the blank lines and spaces around it", () => {
  expect(firstLine(new Error('Platform failure: locked\ncaused by: the prompt was dismissed'))).toBe(
    'Platform failure: locked',
  );
  expect(firstLine('\r\n  Unexpected character\r\n at [Source: …]')).toBe('Unexpected character');
  expect(firstLine({ message: 'a worker error\n  at stack' })).toBe('a worker error');
  // An error without a message says what it is, never an empty line.
  expect(firstLine(new TypeError(''))).toBe('TypeError');
  expect(firstLine(undefined)).toBe('undefined');
});

it('with a bound: a longer line cut there with an ellipsis, never inside a surrogate pair', () => {
  expect(firstLine(`${'x'.repeat(1000)}\nmore`, 300)).toBe(`${'x'.repeat(300)}…`);
  expect(firstLine('x'.repeat(300), 300)).toBe('x'.repeat(300));
  expect(firstLine(`${'x'.repeat(299)}😀😀`, 300)).toBe(`${'x'.repeat(299)}…`);
  expect(firstLine(`${'x'.repeat(298)}😀😀`, 300)).toBe(`${'x'.repeat(298)}😀…`);
});

it('is self-contained: its own source, evaluated alone, works (the credential-store helper runs it so)', () => {
  const copy = new Function(`return ${firstLine}`)() as typeof firstLine;
  expect(copy(new Error('one\ntwo'))).toBe('one');
  expect(copy('y'.repeat(10), 4)).toBe('yyyy…');
});
