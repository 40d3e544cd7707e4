import { describe, expect, it } from 'vitest';
import { colorEnabled } from '../../src/output/color.js';

describe('colour rules', () => {
  it('colour on a terminal; off with NO_COLOR, --no-color, FORCE_COLOR=0 or false; forced by FORCE_COLOR', () => {
    expect(colorEnabled(true, {}, false)).toBe(true);
    expect(colorEnabled(false, {}, false)).toBe(false);
    expect(colorEnabled(true, { NO_COLOR: '1' }, false)).toBe(false);
    expect(colorEnabled(true, {}, true)).toBe(false);
    expect(colorEnabled(true, { FORCE_COLOR: '0' }, false)).toBe(false);
    expect(colorEnabled(true, { FORCE_COLOR: 'false' }, false)).toBe(false);
    expect(colorEnabled(false, { FORCE_COLOR: '1' }, false)).toBe(true);
    expect(colorEnabled(false, { FORCE_COLOR: '' }, false)).toBe(true);
  });
});
