// Roles (docs/api-facts.md §8, Enterprise only), as far as naming them in `user --role/--add-role` needs:
// a role reference {id, name, type} from its name.
import { NotFoundError } from '../errors.js';
import { EditionError, enterprise } from './editions.js';
import type { ApiClient } from './http.js';
import { type RoleRef, RoleSchema } from './schemas.js';

/** Every user has this role; the service adds it on creation and it cannot be removed. */
export const PUBLIC_ROLE = 'PUBLIC';

/**
 * GET /api/v3/role/by-name/{name} (case-insensitive on the service). `feature` names what the caller is
 * doing, for the sentence a community-edition server (which has no roles) ends with.
 */
async function getRoleByName(client: ApiClient, name: string, feature = 'user roles'): Promise<RoleRef> {
  const role = await enterprise(feature, () =>
    client.request({
      method: 'GET',
      path: `/api/v3/role/by-name/${encodeURIComponent(name)}`,
      schema: RoleSchema,
    }),
  ).catch((err: unknown) => {
    if (err instanceof NotFoundError && !(err instanceof EditionError)) {
      throw new NotFoundError(`unknown role "${name}"`, {
        moreInfo: err.message,
        advice: { kind: 'list-roles' },
      });
    }
    throw err;
  });
  return { id: role.id, name: role.name, ...(role.type ? { type: role.type } : {}) };
}

/** Role references for names, looked up one by one (duplicates, in any case, looked up once). */
export async function getRolesByName(
  client: ApiClient,
  names: readonly string[],
  feature?: string,
): Promise<RoleRef[]> {
  const unique = [...new Map(names.map((n) => [n.toLowerCase(), n])).values()];
  return Promise.all(unique.map((n) => getRoleByName(client, n, feature)));
}
