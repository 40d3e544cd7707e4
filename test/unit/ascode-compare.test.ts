// How plan compares a file with the service: the order of an object's keys never counts, at any depth; a
// list's order counts only where the API gives it a meaning (sqlContext, the rules, sort and partition fields).
import { describe, expect, it } from 'vitest';
import { diffFields } from '../../src/ascode/diff.js';

describe('diffFields', () => {
  it('ignores the order of keys at every depth (an aggregation reflection as the service answers it)', () => {
    const file = {
      dimensionFields: [{ granularity: 'NORMAL', name: 'region' }],
      measureFields: [{ measureTypeList: ['SUM', 'COUNT'], name: 'units' }],
      config: { nested: { b: 1, a: [{ y: 2, x: 1 }] } },
    };
    const service = {
      config: { nested: { a: [{ x: 1, y: 2 }], b: 1 } },
      measureFields: [{ name: 'units', measureTypeList: ['COUNT', 'SUM'] }],
      dimensionFields: [{ name: 'region', granularity: 'NORMAL' }],
    };
    expect(diffFields(service, file)).toEqual([]);
  });

  it('compares lists as sets, but for the lists whose order means something', () => {
    expect(
      diffFields(
        { tags: ['a', 'b'], displayFields: [{ name: 'x' }, { name: 'y' }] },
        {
          tags: ['b', 'a'],
          displayFields: [{ name: 'y' }, { name: 'x' }],
        },
      ),
    ).toEqual([]);
    for (const list of ['sqlContext', 'rules', 'sortFields', 'partitionFields']) {
      expect(diffFields({ [list]: ['a', 'b'] }, { [list]: ['b', 'a'] })).toEqual([
        { field: list, from: ['a', 'b'], to: ['b', 'a'] },
      ]);
    }
  });

  it('still shows a real change inside a list item', () => {
    expect(
      diffFields(
        { dimensionFields: [{ name: 'region', granularity: 'DATE' }] },
        { dimensionFields: [{ granularity: 'NORMAL', name: 'region' }] },
      ),
    ).toEqual([
      {
        field: 'dimensionFields',
        from: [{ name: 'region', granularity: 'DATE' }],
        to: [{ granularity: 'NORMAL', name: 'region' }],
      },
    ]);
  });
});
