// `dlake top`'s selection across a refresh (src/commands/top.ts rowAfterRefresh): the selected job is followed
// wherever the refresh lists it; a job that has left the list leaves its row selected, the last row when the list
// got shorter (docs/cli-contract.md "Operations insight").
import { expect, it } from 'vitest';
import { rowAfterRefresh } from '../../src/commands/top.js';

const jobs = (...ids: string[]) => ids.map((id) => ({ id }));

it('follows the selected job when a new job is listed above it or one above it ends', () => {
  expect(rowAfterRefresh(jobs('new', 'a', 'b'), 'a', 0)).toBe(1);
  expect(rowAfterRefresh(jobs('b', 'c'), 'c', 2)).toBe(1);
});

it('a selected job that left the list: the same row, the last one when the list got shorter, 0 when empty', () => {
  expect(rowAfterRefresh(jobs('a', 'c', 'd'), 'b', 1)).toBe(1);
  expect(rowAfterRefresh(jobs('a'), 'c', 2)).toBe(0);
  expect(rowAfterRefresh(jobs(), 'a', 0)).toBe(0);
});

it('nothing selected yet (the first refresh): the first row', () => {
  expect(rowAfterRefresh(jobs('a', 'b'), undefined, 0)).toBe(0);
});
