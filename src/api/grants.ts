// Privileges on a catalog entity (docs/api-facts.md §5.13) and its lineage (§5.12): Enterprise only. The grants PUT
// replaces every grant and has no tag, so changes are merged into the grants just read (mergeGrants, pure).

import * as z from 'zod/mini';
import '../util/zod.js';
import { UsageError } from '../errors.js';
import { ofEntity } from './catalog.js';
import { enterprise } from './editions.js';
import type { ApiClient } from './http.js';
import { optional, text } from './schemas.js';

const grantsPath = (id: string) => ofEntity(id, 'grants');

const GrantSchema = z.looseObject({
  granteeType: z.string(),
  id: text,
  name: optional(z.string()),
  privileges: z._default(z.array(z.string()), []),
});
export type Grant = z.infer<typeof GrantSchema>;
export const GrantsSchema = z.looseObject({
  id: optional(z.string()),
  availablePrivileges: z.optional(z.array(z.string())),
  grants: z._default(z.array(GrantSchema), []),
});
export type Grants = z.infer<typeof GrantsSchema>;

export function getGrants(client: ApiClient, id: string): Promise<Grants> {
  return enterprise('catalog privileges', () =>
    client.request({ method: 'GET', at: grantsPath(id), schema: GrantsSchema }),
  );
}

interface GrantBody {
  grants: Array<{ granteeType: string; id: string; privileges: string[] }>;
}

export function setGrantsRequest(id: string, body: GrantBody) {
  return { method: 'PUT', at: grantsPath(id), json: body } as const;
}

/** PUT …/grants: 204. It replaces all grants and carries no tag, so it is not repeated automatically. */
export async function setGrants(client: ApiClient, id: string, body: GrantBody): Promise<void> {
  await enterprise('catalog privileges', () =>
    client.request({ ...setGrantsRequest(id, body), responseType: 'text' }),
  );
}

// ── The pure part ───────────────────────────────────────────────────────────────────────────────────

export interface GrantSpec {
  kind: 'user' | 'role';
  name: string;
  privileges: string[];
}

export interface ResolvedSpec extends GrantSpec {
  id: string;
}

/**
 * The grants after granting and revoking: the current ones with privileges added or taken away per grantee
 * (a grantee left with none is dropped). Privileges the entity does not offer are refused.
 */
export function mergeGrants(
  current: Grants,
  grant: readonly ResolvedSpec[],
  revoke: readonly ResolvedSpec[],
): { body: GrantBody; changed: string[] } {
  const available = current.availablePrivileges;
  for (const s of [...grant, ...revoke]) {
    const bad = available && s.privileges.find((p) => !available.includes(p));
    if (bad) {
      throw new UsageError(`privilege "${bad}" does not apply to this entity`, {
        hint: `it offers: ${available!.join(', ')}`,
      });
    }
  }
  const key = (type: string, id: string) => `${type.toUpperCase()}:${id}`;
  const map = new Map<string, { granteeType: string; id: string; privileges: string[] }>();
  for (const g of current.grants) {
    map.set(key(g.granteeType, g.id), {
      granteeType: g.granteeType,
      id: g.id,
      privileges: [...g.privileges],
    });
  }
  const changed: string[] = [];
  for (const s of grant) {
    const k = key(s.kind, s.id);
    const g = map.get(k) ?? { granteeType: s.kind.toUpperCase(), id: s.id, privileges: [] };
    for (const p of s.privileges) {
      if (!g.privileges.includes(p)) {
        g.privileges.push(p);
        changed.push(`+${p} ${s.kind} ${s.name}`);
      }
    }
    map.set(k, g);
  }
  for (const s of revoke) {
    const g = map.get(key(s.kind, s.id));
    if (!g) continue;
    for (const p of s.privileges) {
      if (g.privileges.includes(p)) {
        g.privileges = g.privileges.filter((x) => x !== p);
        changed.push(`-${p} ${s.kind} ${s.name}`);
      }
    }
  }
  const grants = [...map.values()].filter((g) => g.privileges.length > 0);
  return { body: { grants }, changed };
}

// ── Lineage ─────────────────────────────────────────────────────────────────────────────────────────

const LineageItemSchema = z.looseObject({
  id: text,
  path: z.optional(z.array(z.string())),
  type: optional(z.string()),
  datasetType: optional(z.string()),
  containerType: optional(z.string()),
});
export type LineageItem = z.infer<typeof LineageItemSchema>;
const LineageSchema = z.looseObject({
  sources: z._default(z.array(LineageItemSchema), []),
  parents: z._default(z.array(LineageItemSchema), []),
  children: z._default(z.array(LineageItemSchema), []),
});
export type Lineage = z.infer<typeof LineageSchema>;

export function getLineage(client: ApiClient, id: string): Promise<Lineage> {
  return enterprise('lineage', () =>
    client.request({
      method: 'GET',
      at: ofEntity(id, 'graph'),
      schema: LineageSchema,
    }),
  );
}
