import { describe, expect, it, vi } from 'vitest';
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

describe('themes', () => {
  it('loads chalk only to colour: no colour is the text as it is', async () => {
    let loads = 0;
    vi.resetModules();
    vi.doMock('chalk', async (original) => {
      loads++;
      return original();
    });
    try {
      const { theme } = await import('../../src/output/color.js');
      const plain = await theme(false);
      expect(loads).toBe(0);
      expect([plain.danger('error:'), plain.enabled]).toEqual(['error:', false]);
      const colored = await theme(true);
      expect(loads).toBe(1);
      expect([colored.danger('error:'), colored.enabled]).toEqual(['\u001b[31merror:\u001b[39m', true]);
    } finally {
      vi.doUnmock('chalk');
      vi.resetModules();
    }
  });
});
