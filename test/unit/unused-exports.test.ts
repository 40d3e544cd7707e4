// Keeps dead code out: every export of src/ must be used by another file of the project (src, tests, scripts,
// benchmarks). An export nothing needs is either dead (delete it) or used only in its own file (drop `export`).
import { expect, it } from 'vitest';
import { unusedExports } from '../helpers/unused-exports.js';

it('every export of src/ is used by another file', () => {
  expect(unusedExports()).toEqual([]);
}, 180_000);
