// `--refresh-secrets`: a source's `${env:…}` secrets are sent again although nothing else changed (a rotated
// password). Secrets cannot be compared (the service answers them masked, docs/api-facts.md §6.1), so without
// the flag a plan never shows them; with it, each source in scope whose file takes a secret from the
// environment is an update marked `(secrets)`.
import * as catalog from '../api/catalog.js';
import type { ApiClient } from '../api/http.js';
import { NotFoundError } from '../errors.js';
import type { Definition } from './definitions.js';
import type { PlanEntry } from './diff.js';
import { catalogKey } from './order.js';
import { compareDefinitions } from './plan.js';
import { secretFields } from './secret-fields.js';
import { envReference } from './substitution.js';

/** The secret fields of a source file that name an environment variable. */
function envSecrets(def: Definition): string[] {
  if (def.kind !== 'source') return [];
  const config = def.fields.config;
  if (!config || typeof config !== 'object') return [];
  return secretFields(def.fields.type).filter(
    (f) => envReference((config as Record<string, unknown>)[f]) !== undefined,
  );
}

/** The plan's creates and updates with every source of `defs` that has `${env:…}` secrets sending them (created ones do anyway). */
export async function withSecretsRefreshed(
  client: ApiClient,
  defs: readonly Definition[],
  plan: readonly PlanEntry[],
): Promise<PlanEntry[]> {
  const out = [...plan];
  const added: PlanEntry[] = [];
  for (const def of defs) {
    const secrets = envSecrets(def);
    if (secrets.length === 0) continue;
    const key = catalogKey(def.path);
    const entry = out.find((e) => e.def.kind === 'source' && catalogKey(e.def.path) === key);
    if (entry) {
      if (entry.action === 'update') entry.secrets = secrets;
      continue;
    }
    try {
      const current = await catalog.getByPath(client, def.path, { exclude: ['children'] });
      added.push({ action: 'update', def, changes: [], current, secrets });
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
  }
  return [...out, ...added].sort((a, b) => compareDefinitions(a.def, b.def));
}
