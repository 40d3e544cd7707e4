// The SQL shell's `\?`: each command's help wrapped under its column on a terminal, whole when piped.
import { describe, expect, it } from 'vitest';
import { COMMANDS, helpLines } from '../../src/shell/meta.js';

const words = (lines: string[]) => lines.join(' ').split(/\s+/).filter(Boolean);

describe('\\?', () => {
  it.each([40, 60, 80, 120])(
    'fits a terminal of %i columns, every word kept, each command on its own line',
    (width) => {
      const lines = helpLines(width);
      expect(lines.filter((l) => [...l].length > width)).toEqual([]);
      expect(words(lines)).toEqual(words(Object.values(COMMANDS)));
      // A command's first line starts at the left; its further lines sit under its description.
      expect(lines.filter((l) => l.startsWith('\\'))).toHaveLength(Object.keys(COMMANDS).length);
      expect(lines.filter((l) => !l.startsWith('\\')).every((l) => l.startsWith(' '.repeat(20)))).toBe(true);
    },
  );

  it('is one line a command when not on a terminal', () => {
    expect(helpLines(undefined)).toEqual(Object.values(COMMANDS));
  });
});
