// What the pat verbs share: the user a token belongs to, by id, by name, or (left out) the caller.
import type { ApiClient } from '../../api/http.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

/** Id and a name to show: a UUID is used as it is (no request), a name is looked up. */
export async function userOf(client: ApiClient, ref: string): Promise<{ id: string; name: string }> {
  const [{ isUuid }, { getUserByName }] = await Promise.all([
    import('../../util/catalog-ref.js'),
    import('../../api/users.js'),
  ]);
  return isUuid(ref) ? { id: ref, name: `user ${ref}` } : getUserByName(client, ref);
}

/**
 * The user a command left out means "yourself": the user name the profile logged in with. A bearer token
 * (DLAKE_TOKEN, a PAT, client credentials) does not say whose it is, so the user must then be named.
 */
export function yourself(ctx: Context): string {
  const settings = ctx.settings();
  const stored = settings.envToken
    ? undefined
    : ctx.snapshot().credentials.tokens[settings.profileName.value];
  const name = stored?.username ?? settings.profile?.username;
  if (!name) {
    throw new UsageError('cannot tell which user you are from these credentials', {
      hint: 'name the user, e.g. dlake pat list USER',
    });
  }
  return name;
}
