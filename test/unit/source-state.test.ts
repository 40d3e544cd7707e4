import { describe, expect, it } from 'vitest';
import type { CatalogEntity } from '../../src/api/schemas/catalog.js';
import { warnUnhealthy } from '../../src/commands/source/shared.js';
import type { Context } from '../../src/context.js';

/** The warnings warnUnhealthy gives for a source whose state is `state`. */
function warningsFor(state: unknown): string[] {
  const warnings: string[] = [];
  const ctx = { ui: { warn: (text: string) => warnings.push(text) } } as unknown as Context;
  warnUnhealthy(ctx, 'lake', { state } as CatalogEntity, 'created');
  return warnings;
}

describe('source state warning under the tolerance policy', () => {
  it('warns for a bad state, skipping messages without text', () => {
    expect(
      warningsFor({ status: 'bad', messages: [{ level: 'ERROR' }, { message: ' no\n folder ' }] }),
    ).toEqual(['source lake was created, but its state is bad: no folder']);
  });

  it('says nothing for a good state, no state, or a state without a status', () => {
    expect(warningsFor({ status: 'GOOD' })).toEqual([]);
    expect(warningsFor(undefined)).toEqual([]);
    expect(warningsFor({ messages: [{ message: 'x' }] })).toEqual([]);
  });
});
