// What the profile verbs share: the error for an unknown profile (a profile as a row is src/ops/profiles.ts).
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export function unknownProfile(ctx: Context, name: string): UsageError {
  const known = Object.keys(ctx.snapshot().config.profiles);
  return new UsageError(`unknown profile "${name}"`, {
    hint: known.length
      ? `known profiles: ${known.join(', ')}`
      : 'create one with `dlake profile set NAME --url URL`',
  });
}
