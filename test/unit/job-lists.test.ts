// The hosted job listing's merge (src/api/job-history.ts mergeJobLists): the history (an hour behind) and the
// live table, each job once by its newer row, newest submitted first, at most the limit.
import { describe, expect, it } from 'vitest';
import { type JobSummary, mergeJobLists } from '../../src/api/job-history.js';

const job = (id: string, submitted: number, state = 'COMPLETED', ended?: number): JobSummary => ({
  id,
  state,
  user: 'admin',
  queryType: 'REST',
  submittedAt: new Date(Date.UTC(2026, 0, 1, 0, submitted)).toISOString(),
  endedAt: ended === undefined ? null : new Date(Date.UTC(2026, 0, 1, 0, ended)).toISOString(),
  durationMs: null,
  rowsReturned: null,
  rowsScanned: null,
  bytesScanned: null,
  queue: null,
  engine: null,
  accelerated: false,
  error: null,
  datasets: [],
  query: `-- ${id} ${state}`,
});

describe('mergeJobLists', () => {
  it('lists both tables newest first, each job once, cut to the limit', () => {
    const history = [job('c', 30, 'COMPLETED', 31), job('a', 10, 'COMPLETED', 11)];
    const live = [job('e', 50, 'RUNNING'), job('d', 40, 'COMPLETED', 41), job('c', 30, 'COMPLETED', 31)];
    expect(mergeJobLists(history, live, 10).map((j) => j.id)).toEqual(['e', 'd', 'c', 'a']);
    expect(mergeJobLists(history, live, 2).map((j) => j.id)).toEqual(['e', 'd']);
    expect(mergeJobLists([], [], 5)).toEqual([]);
  });

  it('keeps the newer row of a job in both: ended over running, the later end, else the live one', () => {
    const running = job('x', 10, 'RUNNING');
    const ended = job('x', 10, 'FAILED', 12);
    const endedLater = job('x', 10, 'CANCELED', 14);
    expect(mergeJobLists([running], [ended], 5)).toEqual([ended]);
    expect(mergeJobLists([ended], [running], 5)).toEqual([ended]);
    expect(mergeJobLists([endedLater], [ended], 5)).toEqual([endedLater]);
    expect(mergeJobLists([ended], [endedLater], 5)).toEqual([endedLater]);
    const sameEnd = { ...ended, query: 'the live row' };
    expect(mergeJobLists([ended], [sameEnd], 5)).toEqual([sameEnd]);
  });
});
