// Who the service says the caller is. The API has no "current user" endpoint; the top-level catalog listing
// (a spec endpoint any user may call) holds the caller's own home, `@<user name>`, which names them. One
// call both proves the credentials and tells whose they are.
import * as z from 'zod/mini';
import { listTopLevel } from './catalog.js';
import { v3 } from './endpoint.js';
import type { ApiClient } from './http.js';

interface Identity {
  /** Undefined when the service lists no home (editions without homes). */
  userName?: string;
}

export async function whoAmI(client: ApiClient): Promise<Identity> {
  const top = await listTopLevel(client);
  const home = top.find(
    (e) => e.containerType === 'HOME' && e.path.length === 1 && e.path[0]!.startsWith('@'),
  );
  return { userName: home ? home.path[0]!.slice(1) : undefined };
}

const InfoSchema = z.looseObject({ version: z.string() });

/**
 * The self-hosted server's version (`GET /api/v3/info`, docs/api-facts.md §3.2), or undefined where the server
 * does not serve it (it is not in the spec).
 */
export async function serverInfo(client: ApiClient): Promise<{ version: string } | undefined> {
  return client.request({
    method: 'GET',
    at: v3('info', 'info', { scope: 'organisation' }),
    schema: InfoSchema,
    notFoundIsUndefined: true,
  });
}
