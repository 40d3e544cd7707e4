// CREATE TABLE <path> AS <query>: the service's engine writes a query's result as a new table. The emulator
// does it for NAS sources whose config has `allowCreateDrop: true`: DuckDB writes one Parquet file into a new
// folder under the source's folder, the folder is registered as a Parquet table (so it appears in the
// catalog at once), and the job's result is the writer's summary, one row per file written, as the service
// answers a CTAS: Fragment, Records, Path, Metadata, Partition, FileSize. Any other target fails the job with
// the service's wording.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type CatalogStore, nasRootOf } from './catalog-store.js';
import { dottedPath } from './catalog-view.js';
import type { FieldProbe } from './nas.js';
import { statPath } from './nas.js';

export interface CtasStatement {
  path: string[];
  query: string;
}

/** `CREATE TABLE a."b c".d AS SELECT …` → its path and query; undefined for any other statement. */
export function parseCtas(sql: string): CtasStatement | undefined {
  const head = /^\s*CREATE\s+TABLE\s+/i.exec(sql);
  if (!head) return undefined;
  let i = head[0].length;
  const path: string[] = [];
  for (;;) {
    if (sql[i] === '"') {
      let comp = '';
      i++;
      for (;;) {
        if (i >= sql.length) return undefined;
        if (sql[i] === '"' && sql[i + 1] === '"') {
          comp += '"';
          i += 2;
        } else if (sql[i] === '"') {
          i++;
          break;
        } else comp += sql[i++];
      }
      path.push(comp);
    } else {
      const bare = /^[^\s."(]+/.exec(sql.slice(i));
      if (!bare) return undefined;
      path.push(bare[0]);
      i += bare[0].length;
    }
    const dot = /^\s*\.\s*/.exec(sql.slice(i));
    if (!dot) break;
    i += dot[0].length;
  }
  const as = /^\s+AS\s+/i.exec(sql.slice(i));
  if (!as) return undefined;
  return { path, query: sql.slice(i + as[0].length).replace(/;\s*$/, '') };
}

/** The service's failures of a CTAS, as its job's errorMessage. */
export class CtasError extends Error {}

export interface CtasCatalog {
  /** The folder the new table's files go into; throws CtasError where the service would refuse. */
  target(path: string[]): string;
  /** Registers the written folder as a Parquet table. */
  register(path: string[], folder: string): Promise<void>;
}

export function ctasCatalog(store: CatalogStore, probe: FieldProbe): CtasCatalog {
  return {
    target(path) {
      const parent = path.slice(0, -1);
      const root = store.rootOf(path);
      if (path.length < 2 || !root) {
        throw new CtasError(
          `Schema [${dottedPath(parent)}] is not valid with respect to either root schema or current default schema.`,
        );
      }
      const nasRoot = root.kind === 'source' ? nasRootOf(root) : undefined;
      // Jackson reads "true" as true for the service's boolean field.
      const allowed = root.kind === 'source' && String(root.config.allowCreateDrop) === 'true';
      if (!nasRoot || !allowed) {
        throw new CtasError(`Unable to create or drop objects. Schema [${dottedPath(parent)}] is immutable.`);
      }
      const rel = path.slice(1);
      if (rel.some((c) => c === '' || c === '.' || c === '..' || /[/\\\0]/.test(c) || /^[._]/.test(c))) {
        throw new CtasError(`Invalid path. Given path, [${dottedPath(path)}] is not valid.`);
      }
      if (store.resolvePath(path)) {
        throw new CtasError(`A table or view with given name [${dottedPath(path)}] already exists.`);
      }
      const folder = join(nasRoot, ...rel);
      mkdirSync(folder, { recursive: true });
      return folder;
    },
    async register(path, folder) {
      const disk = statPath(folder);
      const root = store.rootOf(path)!;
      const fields = await probe.probe(folder, true, 'parquet');
      store.insert({
        ...store.stamp(),
        kind: 'dataset',
        type: 'PHYSICAL_DATASET',
        path: [root.path[0]!, ...path.slice(1)],
        format: { type: 'Parquet', ctime: disk?.mtimeMs ?? 0, isFolder: true, location: folder },
        file: { abs: folder, isFolder: true, format: 'parquet' },
        fields,
      });
    },
  };
}
