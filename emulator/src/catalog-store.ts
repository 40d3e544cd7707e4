// The catalog's entity tree: spaces, sources, folders, homes and datasets, indexed by id and by path, plus the
// live view of NAS folders on disk and the collaboration data (labels, wikis) kept per entity id.
import { randomUUID } from 'node:crypto';
import { isAbsolute } from 'node:path';
import {
  type CsvOptions,
  compareNames,
  type DiskEntry,
  type Field,
  type FileFormat,
  listDisk,
  statDisk,
} from './nas.js';
import { newTag } from './state.js';

interface EntityBase {
  id: string;
  /** Canonical spelling of each component, as created. */
  path: string[];
  /** New at every write (state.ts `newTag()`, the KV store's base64 fingerprint form). */
  tag: string;
  /** ISO 8601 with milliseconds. */
  createdAt: string;
}

export interface SpaceEntity extends EntityBase {
  kind: 'space';
}

export interface HomeEntity extends EntityBase {
  kind: 'home';
  owner: string;
}

export interface FolderEntity extends EntityBase {
  kind: 'folder';
}

export interface MetadataPolicy {
  authTTLMs: number;
  namesRefreshMs: number;
  datasetRefreshAfterMs: number;
  datasetExpireAfterMs: number;
  datasetUpdateMode: string;
  deleteUnavailableDatasets: boolean;
  autoPromoteDatasets: boolean;
}

export interface SourceSettings {
  accelerationGracePeriodMs: number;
  accelerationRefreshPeriodMs: number;
  accelerationNeverExpire: boolean;
  accelerationNeverRefresh: boolean;
  allowCrossSourceSelection: boolean;
  disableMetadataValidityCheck: boolean;
  accelerationActivePolicyType?: string;
  accelerationRefreshSchedule?: string;
  description?: string;
}

export interface SourceEntity extends EntityBase {
  kind: 'source';
  type: string;
  /** Stored unmasked; responses go through `maskSecrets`. */
  config: Record<string, unknown>;
  metadataPolicy: MetadataPolicy;
  settings: SourceSettings;
}

/** What a promoted table reads from disk. */
export interface PromotedFile {
  abs: string;
  isFolder: boolean;
  format: FileFormat;
  csv?: CsvOptions;
}

export interface DatasetEntity extends EntityBase {
  kind: 'dataset';
  type: 'VIRTUAL_DATASET' | 'PHYSICAL_DATASET';
  sql?: string;
  sqlContext?: string[];
  /** Tables: the `format` object as shown (with ctime, isFolder, location). */
  format?: Record<string, unknown>;
  file?: PromotedFile;
  fields?: Field[];
  accelerationRefreshPolicy?: Record<string, unknown>;
}

export type NsEntity = SpaceEntity | HomeEntity | FolderEntity | SourceEntity | DatasetEntity;

/** Anything an id or a path can name: a namespace entity, or a not-yet-promoted file or folder of a NAS source. */
export type CatalogNode = { kind: 'entity'; entity: NsEntity } | DiskNode;

/** A file (`kind: 'file'`) or folder (`kind: 'dir'`) of a NAS source that is not promoted. */
export type DiskNode = ({ kind: 'file' } | { kind: 'dir' }) & {
  source: SourceEntity;
  path: string[];
  disk: DiskEntry;
};

const diskNode = (source: SourceEntity, path: string[], disk: DiskEntry): DiskNode =>
  disk.isDir ? { kind: 'dir', source, path, disk } : { kind: 'file', source, path, disk };

/** One dataset as the SQL jobs area needs it (see `registerCatalog`). */
export interface CatalogDataset {
  /** The catalog id (a UUID). */
  id: string;
  path: string[];
  kind: 'file' | 'view';
  /** Tables: absolute path of the file, or of the folder for a promoted folder. */
  filePath?: string;
  format?: FileFormat;
  /** Tables: whether `filePath` is a folder (read every file of `format` below it). */
  isFolder?: boolean;
  /** Text tables: how to read them (delimiter, header line, skipped first line). */
  csv?: CsvOptions;
  sql?: string;
  sqlContext?: string[];
}

/** Prefix of the path-derived ids of unpromoted NAS files and folders (docs/api-facts.md §1.6). */
export const INTERNAL_ID_PREFIX = 'service:/';

/**
 * Namespace keys are lower-cased in the real service, so lookups and clashes are case-insensitive while each
 * entity keeps the spelling it was created with.
 */
const keyOf = (path: readonly string[]): string => JSON.stringify(path.map((c) => c.toLowerCase()));

const isUnder = (path: readonly string[], parent: readonly string[]): boolean =>
  path.length > parent.length && parent.every((c, i) => c.toLowerCase() === path[i]!.toLowerCase());

/** The folder a NAS source serves; only absolute paths count (a relative one leaves the source empty and bad). */
export function nasRootOf(source: SourceEntity): string | undefined {
  const p = source.config.path;
  return source.type === 'NAS' && typeof p === 'string' && isAbsolute(p) ? p : undefined;
}

export const nodePath = (n: CatalogNode): string[] => (n.kind === 'entity' ? n.entity.path : n.path);
export const nodeName = (n: CatalogNode): string => nodePath(n).at(-1) ?? '';
export const internalId = (path: readonly string[]): string => INTERNAL_ID_PREFIX + path.join('/');

export class CatalogStore {
  private readonly byId = new Map<string, NsEntity>();
  private readonly byKey = new Map<string, NsEntity>();
  /** Labels per entity id; a record exists only while there are labels (see the collaboration routes). */
  readonly labels = new Map<string, { tags: string[]; version: string }>();
  readonly wikis = new Map<string, { text: string; version: number }>();

  constructor(
    private readonly now: () => number,
    /** What responses show instead of a stored secret (see `EmulatorOptions.secretPlaceholder`). */
    readonly secretPlaceholder?: string,
  ) {}

  /** A fresh id, tag and creation time for a new entity. */
  stamp(): EntityBase & { path: [] } {
    return { id: randomUUID(), path: [], tag: newTag(), createdAt: new Date(this.now()).toISOString() };
  }

  get(id: string): NsEntity | undefined {
    return this.byId.get(id);
  }

  at(path: readonly string[]): NsEntity | undefined {
    return this.byKey.get(keyOf(path));
  }

  insert<E extends NsEntity>(entity: E): E {
    this.byId.set(entity.id, entity);
    this.byKey.set(keyOf(entity.path), entity);
    return entity;
  }

  /** Records a write: every change to an entity gives it a new tag. */
  touch(entity: NsEntity): void {
    entity.tag = newTag();
  }

  /** Removes an entity with everything below it (a space or folder delete takes its contents along). */
  remove(entity: NsEntity): void {
    for (const e of [entity, ...this.descendants(entity.path)]) {
      this.byId.delete(e.id);
      this.byKey.delete(keyOf(e.path));
      this.labels.delete(e.id);
      this.wikis.delete(e.id);
    }
  }

  /** Moves a view (its id, labels and wiki stay). */
  move(entity: DatasetEntity, path: string[]): void {
    this.byKey.delete(keyOf(entity.path));
    entity.path = path;
    this.byKey.set(keyOf(path), entity);
  }

  descendants(path: readonly string[]): NsEntity[] {
    return [...this.byId.values()].filter((e) => isUnder(e.path, path));
  }

  /** Namespace entities directly below `path`, in name order. */
  nsChildren(path: readonly string[]): NsEntity[] {
    return [...this.byId.values()]
      .filter((e) => e.path.length === path.length + 1 && isUnder(e.path, path))
      .sort((a, b) => compareNames(a.path.at(-1)!, b.path.at(-1)!));
  }

  /** Spaces then sources, each in name order (homes are per user, see `home`). */
  topLevel(): Array<SpaceEntity | SourceEntity> {
    const top = [...this.byId.values()].filter(
      (e): e is SpaceEntity | SourceEntity => e.kind === 'space' || e.kind === 'source',
    );
    const rank = (e: NsEntity) => (e.kind === 'space' ? 0 : 1);
    return top.sort((a, b) => rank(a) - rank(b) || compareNames(a.path[0]!, b.path[0]!));
  }

  sources(): SourceEntity[] {
    return [...this.byId.values()].filter((e): e is SourceEntity => e.kind === 'source');
  }

  /** The top-level entity a path starts in (space, source or home). */
  rootOf(path: readonly string[]): NsEntity | undefined {
    return path.length ? this.at([path[0]!]) : undefined;
  }

  /**
   * The `@<user>` home, created on first use. The real service creates it at the user's first login; here the
   * catalog routes call this for the caller on every request, which makes it exist before anything can see it.
   */
  home(userName: string): HomeEntity {
    const path = [`@${userName}`];
    const found = this.at(path);
    if (found?.kind === 'home') return found;
    return this.insert({ ...this.stamp(), kind: 'home', path, owner: userName });
  }

  /** Resolves a path to a namespace entity or, inside a NAS source, to a file or folder on disk. */
  resolvePath(path: readonly string[]): CatalogNode | undefined {
    const entity = this.at(path);
    if (entity) return { kind: 'entity', entity };
    const root = this.rootOf(path);
    if (path.length < 2 || root?.kind !== 'source' || root.type !== 'NAS') return undefined;
    const nasRoot = nasRootOf(root);
    if (!nasRoot) return undefined;
    const rel = path.slice(1);
    const disk = statDisk(nasRoot, rel);
    if (!disk) return undefined;
    return diskNode(root, [root.path[0]!, ...rel], disk);
  }

  /**
   * Resolves an id: a UUID, or an internal `service:/<source>/<a>/<b>` id, which only names things inside a
   * source (docs/api-facts.md §5.2: anything else is treated as not found).
   */
  resolveId(id: string): CatalogNode | undefined {
    if (!id.startsWith(INTERNAL_ID_PREFIX)) {
      const entity = this.byId.get(id);
      return entity && { kind: 'entity', entity };
    }
    const path = this.parseInternalId(id);
    const node = path && this.resolvePath(path);
    if (!node) return undefined;
    if (node.kind === 'entity' && this.rootOf(node.entity.path)?.kind !== 'source') return undefined;
    if (node.kind === 'entity' && node.entity.kind === 'source') return undefined;
    return node;
  }

  /** Splits an internal id on `/`, matching the source name first since source names may contain slashes. */
  private parseInternalId(id: string): string[] | undefined {
    const rest = id.slice(INTERNAL_ID_PREFIX.length);
    for (const s of this.sources()) {
      const name = s.path[0]!;
      if (rest.toLowerCase() === name.toLowerCase()) return [name];
      if (rest.toLowerCase().startsWith(`${name.toLowerCase()}/`)) {
        return [name, ...rest.slice(name.length + 1).split('/')].filter((c) => c !== '');
      }
    }
    return undefined;
  }

  /** Whether a node lists its children from disk (NAS source or folder), which ignores paging. */
  isFilesystem(node: CatalogNode): boolean {
    if (node.kind === 'dir') return true;
    return node.kind === 'entity' && node.entity.kind === 'source' && node.entity.type === 'NAS';
  }

  /** Children of a container in name order; files and datasets have none. */
  children(node: CatalogNode): CatalogNode[] {
    if (node.kind === 'file') return [];
    if (node.kind === 'dir') return this.diskChildren(node.source, node.path, node.disk.abs);
    const e = node.entity;
    if (e.kind === 'dataset') return [];
    const nasRoot = e.kind === 'source' ? nasRootOf(e) : undefined;
    if (e.kind === 'source' && nasRoot) return this.diskChildren(e, e.path, nasRoot);
    return this.nsChildren(e.path).map((entity) => ({ kind: 'entity', entity }));
  }

  /**
   * A NAS folder read live from disk: promoted entries show as their datasets, the rest as FILE or FOLDER
   * items; a promoted table whose file has since gone stays listed until it is deleted, as in the real service.
   */
  private diskChildren(source: SourceEntity, path: string[], abs: string): CatalogNode[] {
    const seen = new Set<string>();
    const out: CatalogNode[] = [];
    for (const disk of listDisk(abs)) {
      const childPath = [...path, disk.name];
      const entity = this.at(childPath);
      seen.add(keyOf(childPath));
      out.push(entity ? { kind: 'entity', entity } : diskNode(source, childPath, disk));
    }
    for (const entity of this.nsChildren(path)) {
      if (!seen.has(keyOf(entity.path))) out.push({ kind: 'entity', entity });
    }
    return out.sort((a, b) => compareNames(nodeName(a), nodeName(b)));
  }

  /** The stored, unmasked config of a source (tests check that secrets were kept). */
  sourceConfig(name: string): Record<string, unknown> | undefined {
    const s = this.at([name]);
    return s?.kind === 'source' ? structuredClone(s.config) : undefined;
  }

  /** Every table and view, for the SQL engine. */
  datasets(): CatalogDataset[] {
    const out: CatalogDataset[] = [];
    for (const e of this.byId.values()) {
      if (e.kind !== 'dataset') continue;
      if (e.type === 'VIRTUAL_DATASET') {
        out.push({
          id: e.id,
          path: [...e.path],
          kind: 'view',
          sql: e.sql,
          sqlContext: [...(e.sqlContext ?? [])],
        });
      } else if (e.file) {
        out.push({
          id: e.id,
          path: [...e.path],
          kind: 'file',
          filePath: e.file.abs,
          format: e.file.format,
          isFolder: e.file.isFolder,
          ...(e.file.csv ? { csv: { ...e.file.csv } } : {}),
        });
      }
    }
    return out;
  }

  /**
   * Lets the SQL engine record a dataset's schema once it has run it. Discovering a schema is not an edit, so
   * the tag stays (a client holding the tag can still update).
   */
  setFields(path: readonly string[], fields: Field[]): void {
    const e = this.at(path);
    if (e?.kind === 'dataset') e.fields = fields.map((f) => ({ name: f.name, type: { name: f.type.name } }));
  }
}
