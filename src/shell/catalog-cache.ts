// What the SQL shell knows of the catalog, read once a session: each container's children (for Tab and \dt)
// and each dataset's fields (for \d and the completion of column names). A read that fails is not kept, so
// the next one may find the service back; one that succeeds is kept until the shell ends (docs/cli-contract.md
// "Scripts and the SQL shell": names are cached for the session).
import type { ApiClient } from '../api/http.js';
import type { CatalogEntity, CatalogSummary } from '../api/schemas/catalog.js';

export type Field = NonNullable<CatalogEntity['fields']>[number];

export class CatalogCache {
  private readonly listings = new Map<string, Promise<CatalogSummary[]>>();
  private readonly entities = new Map<string, Promise<CatalogEntity>>();

  constructor(private readonly client: () => Promise<ApiClient>) {}

  /** Forgets everything read: a statement that changes the catalog (CREATE, DROP, ALTER…) was run. */
  forget(): void {
    this.listings.clear();
    this.entities.clear();
  }

  /**
   * The children of a container (`[]`: the top level), listed the first time they are asked for. A dataset
   * has none: its container's listing (read first, once too) says what `path` is, and a dataset is not listed.
   */
  children(path: readonly string[]): Promise<CatalogSummary[]> {
    return this.once(this.listings, path, async () => {
      const client = await this.client();
      const { listTopLevel, listChildren } = await import('../api/catalog.js');
      if (path.length === 0) return listTopLevel(client);
      const siblings = await this.children(path.slice(0, -1)).catch(() => undefined);
      const self = siblings?.find((c) => (c.path.at(-1) ?? '').toLowerCase() === path.at(-1)!.toLowerCase());
      if (self?.type === 'DATASET') return [];
      return (await listChildren(client, { kind: 'path', path: [...path] })).children;
    });
  }

  /** The entity at a path (without its children), read the first time it is asked for. */
  entity(path: readonly string[]): Promise<CatalogEntity> {
    return this.once(this.entities, path, async () => {
      const client = await this.client();
      const { getByPath } = await import('../api/catalog.js');
      return getByPath(client, path, { exclude: ['children'] });
    });
  }

  /** A dataset's fields; none for a container or an entity that cannot be read. */
  async fields(path: readonly string[]): Promise<Field[]> {
    try {
      return (await this.entity(path)).fields ?? [];
    } catch {
      return [];
    }
  }

  private once<T>(map: Map<string, Promise<T>>, path: readonly string[], read: () => Promise<T>): Promise<T> {
    const k = key(path);
    let value = map.get(k);
    if (!value) {
      value = read();
      map.set(k, value);
      value.catch(() => map.delete(k));
    }
    return value;
  }
}

/** Paths compare case-insensitively, as the service resolves them. */
function key(path: readonly string[]): string {
  return JSON.stringify(path.map((p) => p.toLowerCase()));
}
