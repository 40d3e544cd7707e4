// What the profile verbs share: a profile as a row (with its token's state, never the token) and the error
// for an unknown profile.
import { isExpired } from '../../auth/expiry.js';
import type { Profile } from '../../config/schema.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export interface ProfileRow extends Profile {
  name: string;
  current: boolean;
  token: string;
}

export function rowsOf(ctx: Context): ProfileRow[] {
  const { config, credentials } = ctx.snapshot();
  return Object.entries(config.profiles).map(([name, p]) => {
    const t = credentials.tokens[name];
    const token = !t
      ? 'none'
      : isExpired(t.expiresAt)
        ? `${t.kind} (expired)`
        : `${t.kind} via ${t.obtainedVia}`;
    return { name, current: config.currentProfile === name, token, ...p };
  });
}

export function unknownProfile(ctx: Context, name: string): UsageError {
  const known = Object.keys(ctx.snapshot().config.profiles);
  return new UsageError(`unknown profile "${name}"`, {
    hint: known.length
      ? `known profiles: ${known.join(', ')}`
      : 'create one with `dlake profile set NAME --url URL`',
  });
}
