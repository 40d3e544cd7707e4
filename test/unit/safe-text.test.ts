// Text on its way to stderr (docs/cli-contract.md "Errors"): control characters shown as symbols, line feeds
// and tabs kept; long texts cut unless -v.
import { describe, expect, it } from 'vitest';
import { bounded, stderrSafe, terminalSafe } from '../../src/output/safe-text.js';

describe('stderrSafe', () => {
  it('shows ESC, BEL, CR, backspace, DEL and the C1 controls as symbols, and keeps LF and tab', () => {
    expect(stderrSafe('a\u001b[2Jb\u0007c\rd\be\u007ff\u009bg\n\th')).toBe('a␛[2Jb␇c␍d␈e␡f\ufffdg\n\th');
  });

  it('leaves printable text, accents and emoji alone', () => {
    expect(stderrSafe('Zoë – ✓ 🚀 "x"')).toBe('Zoë – ✓ 🚀 "x"');
  });
});

describe('terminalSafe', () => {
  it('keeps a cell on one line', () => {
    expect(terminalSafe('a\r\nb\nc\rd\te')).toBe('a⏎b⏎c⏎d␉e');
  });
});

describe('bounded', () => {
  it('cuts at 2,000 characters and says how much -v shows', () => {
    const text = 'x'.repeat(2500);
    expect(bounded(text, false)).toBe(`${'x'.repeat(2000)}… (500 more characters; -v shows all)`);
    expect(bounded(text, true)).toBe(text);
    expect(bounded('short', false)).toBe('short');
  });
});
