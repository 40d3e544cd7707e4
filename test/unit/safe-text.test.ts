// Text on its way to stderr (docs/cli-contract.md "Errors"): control characters shown as symbols, line feeds
// and tabs kept; long texts cut unless -v.
import { describe, expect, it } from 'vitest';
import { bounded, jsonTerminalSafe, stderrSafe, terminalSafe } from '../../src/output/safe-text.js';

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

describe('invisible and reordering characters', () => {
  // Every format character (Cf) there is, and the line and paragraph separators.
  const invisible: string[] = [];
  for (let code = 0; code < 0x110000; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const c = String.fromCodePoint(code);
    if (/[\p{Cf}\u2028\u2029]/u.test(c)) invisible.push(c);
  }

  it('are shown as <U+XXXX> in cells and in lines, every one of them, between ASCII letters', () => {
    expect(invisible.length).toBeGreaterThan(150);
    for (const c of invisible) {
      const code = `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`;
      expect(terminalSafe(`a${c}b`)).toBe(`a${code}b`);
      expect(stderrSafe(`a${c}b`)).toBe(`a${code}b`);
    }
  });

  it('a zero-width space, a right-to-left override and an isolate cannot disguise a name', () => {
    expect(terminalSafe('Sales/zero\u200bwidth')).toBe('Sales/zero<U+200B>width');
    expect(terminalSafe('invoice\u202efdp.exe')).toBe('invoice<U+202E>fdp.exe');
    expect(stderrSafe('\u2066x\u2069 y')).toBe('<U+2066>x<U+2069> y');
  });

  it('joiners between characters beyond ASCII (emoji sequences, Persian words) are left to join', () => {
    expect(terminalSafe('👩\u200d💻')).toBe('👩\u200d💻');
    expect(stderrSafe('می\u200cخواهم')).toBe('می\u200cخواهم');
    expect(terminalSafe('a\u200db')).toBe('a<U+200D>b');
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

describe('jsonTerminalSafe: JSON on a terminal', () => {
  it('escapes the C1 controls and the invisible and reordering characters, as JSON readers read them', () => {
    const value = { name: 'a\u202eevil\u202c\u2066b\u009b31m\u200bc\u2028d\u{e0041}', emoji: '👩‍💻' };
    const text = jsonTerminalSafe(JSON.stringify(value));
    expect(text).not.toMatch(/[\u0080-\u009f\u200b\u202a-\u202e\u2066-\u2069\u2028\u{e0041}]/u);
    expect(text).toContain('\\u202e');
    // The same JSON: every reader gets the same value, the joiner of the emoji kept as it is.
    expect(JSON.parse(text)).toEqual(value);
    expect(text).toContain('👩‍💻');
  });
});

describe('stderrSafe: a line of foreign text that starts with a label of dlake', () => {
  it('is indented, after a line feed or a carriage return and line feed alike', () => {
    expect(stderrSafe('created user a\r\nerror: forged\nhint: run rm\nwarning: x\nno label')).toBe(
      'created user a␍\n  error: forged\n  hint: run rm\n  warning: x\nno label',
    );
  });
});
