// Who the service says the caller is. The API has no "current user" endpoint; the top-level catalog listing
// (a spec endpoint any user may call) holds the caller's own home, `@<user name>`, which names them. One
// call both proves the credentials and tells whose they are.
import { listTopLevel } from './catalog.js';
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
