// Catalog writes: create (docs/api-facts.md §5.3, §6.1), promote (§5.4), update (§5.5) and delete (§5.6),
// with the service's rules and error texts. Reads, routes and collaboration live in catalog.ts and
// catalog-collab.ts.
import {
  type CatalogNode,
  type CatalogStore,
  type DatasetEntity,
  type DiskNode,
  type FolderEntity,
  INTERNAL_ID_PREFIX,
  type MetadataPolicy,
  type NsEntity,
  nodePath,
  type PromotedFile,
  type SourceEntity,
  type SourceSettings,
  type SpaceEntity,
} from './catalog-store.js';
import { dottedPath, listString, renderEntity } from './catalog-view.js';
import {
  badRequest,
  conflict,
  type EmuResponse,
  forbidden,
  noContent,
  notFound,
  ok,
  type Principal,
} from './http.js';
import {
  type DiskEntry,
  type FieldProbe,
  type FileFormat,
  FORMAT_TYPE_OF,
  fileFormatOf,
  folderHasFormat,
  statPath,
} from './nas.js';
import { applyStoredSecrets, checkSourceType, normalizeConfig } from './source-configs.js';
import { missingReference } from './view-references.js';

export interface CatalogContext {
  store: CatalogStore;
  probe: FieldProbe;
  edition: 'enterprise' | 'community';
}

type Body = Record<string, unknown>;

// ── Small helpers shared by the catalog routes ──────────────────────────────────────────────────────────

/** A request body that must be a JSON object; anything else fails binding like Jackson (`Invalid value.`). */
export function asObject(body: unknown): Body {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('Invalid value.');
  return body as Body;
}

export const invalidAt = (at: string) => badRequest(`Invalid value found at: ${at}`);

/** A bean-validation failure (docs/api-facts.md §1.4): `Invalid input ` + `\n<field>: <message>`, with the
 * field map. */
function validationError(field: string, message: string) {
  return badRequest(`Invalid input \n${field}: ${message}`, {
    validationErrorMessages: { fieldErrorMessages: { [field]: [message] }, globalErrorMessages: [] },
  });
}

function stringList(value: unknown, at: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalidAt(at);
  return value.map((v, i) => {
    if (typeof v !== 'string') throw invalidAt(`${at}[${i}]`);
    return v;
  });
}

const samePath = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((c, i) => c === b[i]);

const samePathIgnoringCase = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((c, i) => c.toLowerCase() === b[i]!.toLowerCase());

/** The namespace container type named in messages (`[SOURCE]`, `[DATASET]`, …). */
export const nsType = (e: NsEntity): string => e.kind.toUpperCase();

/** The entity class name the service puts in its "can not be edited/deleted" messages. */
export function className(node: CatalogNode): string {
  if (node.kind === 'file') return 'File';
  if (node.kind === 'dir') return 'Folder';
  return { space: 'Space', home: 'Home', folder: 'Folder', source: 'Source', dataset: 'Dataset' }[
    node.entity.kind
  ];
}

/**
 * Who may write where (the spec says only "403 when permission is missing"; the emulator's simple model):
 * admins anywhere; other users inside spaces (not the spaces themselves) and in their own home; sources,
 * including promotion inside them, are admin-only; another user's home is off limits.
 */
export function requireWrite(store: CatalogStore, p: Principal, path: readonly string[]): void {
  if (p.admin) return;
  const root = path[0] ?? '';
  if (root.startsWith('@')) {
    if (root.toLowerCase() === `@${p.userName}`.toLowerCase()) return;
    throw forbidden();
  }
  if (path.length < 2 || store.rootOf(path)?.kind === 'source') throw forbidden();
}

// ── Create ──────────────────────────────────────────────────────────────────────────────────────────────

export async function createEntity(cx: CatalogContext, p: Principal, body: unknown): Promise<EmuResponse> {
  const b = asObject(body);
  switch (b.entityType) {
    case 'space':
      return ok(createSpace(cx.store, p, b));
    case 'folder':
      return ok(createFolder(cx.store, p, b));
    case 'dataset':
      return ok(createView(cx.store, p, b));
    case 'source':
      return ok(createSource(cx, p, b));
    case 'file':
    case 'home':
    case 'function':
      throw badRequest(`Catalog item of type [${cap(b.entityType)}] can not be created.`);
    default:
      // Jackson's polymorphic lookup fails before any service code runs.
      throw badRequest(`An invalid value was found: ${String(b.entityType ?? null)}`);
  }
}

const cap = (s: string): string => s[0]!.toUpperCase() + s.slice(1);

function createSpace(store: CatalogStore, p: Principal, b: Body): Record<string, unknown> {
  if (!p.admin) throw forbidden();
  if (b.id != null) throw badRequest('Space id is immutable.');
  if (b.name == null) throw badRequest('Space name is required.');
  if (typeof b.name !== 'string') throw invalidAt('name');
  const name = b.name;
  if (name.trim() === '') throw badRequest('Space name cannot be empty.');
  // Checked before the pattern so that this message of the service stays reachable.
  if (name.startsWith('@')) throw badRequest(`Space ${name} can not start with @`);
  // The 26.x docs also forbid `/ : [ ]`; the emulator keeps the source code's pattern (periods, quotes, @).
  if (!/^[^."@]+$/.test(name)) {
    throw validationError('name', 'Space name can not contain periods, double quotes or @.');
  }
  // Spaces and sources share the top level: any clash is a 409.
  if (store.at([name])) throw conflict(`A space with the name [${name}] already exists.`);
  const space: SpaceEntity = store.insert({ ...store.stamp(), kind: 'space', path: [name] });
  return renderEntity(store, space, {});
}

function createFolder(store: CatalogStore, p: Principal, b: Body): Record<string, unknown> {
  // Not in the list of §5.3, by analogy with the other entity kinds.
  if (b.id != null) throw badRequest('Folder id is immutable.');
  const path = stringList(b.path, 'path');
  if (!path || path.length < 2) throw badRequest('Folder path should be fully qualified.');
  const name = path.at(-1)!;
  if (!/^[^."/]+$/.test(name)) {
    throw validationError('name', 'Folder name cannot contain periods, forward slashes or double quotes.');
  }
  if (store.rootOf(path)?.kind === 'source') throw badRequest('Can not create a folder inside a [SOURCE].');
  requireWrite(store, p, path);
  const parentPath = path.slice(0, -1);
  const parent = store.at(parentPath);
  if (!parent) throw badRequest(`Could not find entity with path [${listString(parentPath)}].`);
  if (parent.kind === 'dataset') throw badRequest('Can not create a folder inside a [DATASET].');
  if (store.at(path)) {
    throw conflict(
      `The current location already contains a folder named "${name}". Please use a unique name for the new folder.`,
    );
  }
  const folder: FolderEntity = store.insert({
    ...store.stamp(),
    kind: 'folder',
    path: [...parent.path, name],
  });
  return renderEntity(store, folder, {});
}

/** Checks a view's target path (create or move) and returns it in canonical spelling. */
function viewTarget(
  store: CatalogStore,
  p: Principal,
  path: string[] | undefined,
  self?: DatasetEntity,
): string[] {
  if (!path) throw badRequest('Dataset path is required.');
  if (path.length < 2) throw badRequest('Dataset path should be fully qualified.');
  const parentPath = path.slice(0, -1);
  const root = store.rootOf(path);
  if (!root) throw badRequest(`Could not find entity with path [${listString(parentPath)}].`);
  if (root.kind !== 'space' && root.kind !== 'home') {
    throw badRequest('Virtual datasets can only be saved into spaces, home space or versioned sources.');
  }
  requireWrite(store, p, path);
  const parent = store.at(parentPath);
  // The spec is silent on a missing parent folder; the emulator answers like a folder create does.
  if (!parent) throw badRequest(`Could not find entity with path [${listString(parentPath)}].`);
  if (parent.kind === 'dataset') {
    throw badRequest('Virtual datasets can only be saved into spaces, home space or versioned sources.');
  }
  const existing = store.at(path);
  if (existing && existing !== self) {
    // The namespace's clash message (a ConcurrentModificationException, hence 409).
    throw conflict(
      `There already exists an entity of type [${nsType(existing)}] at given path [${dottedPath(existing.path)}]`,
    );
  }
  return [...parent.path, path.at(-1)!];
}

function viewSql(store: CatalogStore, b: Body): { sql: string; sqlContext: string[] | undefined } {
  if (b.sql == null) throw badRequest('Virtual dataset must have sql defined.');
  if (typeof b.sql !== 'string') throw invalidAt('sql');
  if (b.sql.trim() === '') throw badRequest('Virtual dataset cannot have empty sql defined.');
  if (b.format != null) throw badRequest('Virtual dataset cannot have a format defined.');
  const sqlContext = stringList(b.sqlContext, 'sqlContext');
  // The service validates the SQL of a view it saves: what it reads must exist.
  const missing = missingReference(store, b.sql, sqlContext);
  if (missing) throw badRequest(`Table '${missing.join('.')}' not found`);
  return { sql: b.sql, sqlContext };
}

function createView(store: CatalogStore, p: Principal, b: Body): Record<string, unknown> {
  if (b.id != null) throw badRequest('Dataset id is immutable.');
  if (b.type == null) throw badRequest('Dataset type is required.');
  if (b.type === 'PHYSICAL_DATASET') {
    throw badRequest('Physical Datasets can only be created by promoting other entities.');
  }
  if (b.type !== 'VIRTUAL_DATASET') throw invalidAt('type');
  const requested = stringList(b.path, 'path');
  if (!requested) throw badRequest('Dataset path is required.');
  if (requested.length < 2) throw badRequest('Dataset path should be fully qualified.');
  const { sql, sqlContext } = viewSql(store, b);
  const path = viewTarget(store, p, requested);
  // The real service plans the SQL to derive `fields`; the emulator leaves them to the jobs area
  // (`catalogFields`) and checks only that what the SQL reads exists.
  const view: DatasetEntity = store.insert({
    ...store.stamp(),
    kind: 'dataset',
    type: 'VIRTUAL_DATASET',
    path,
    sql,
    sqlContext,
  });
  return renderEntity(store, view, {});
}

// ── Sources ─────────────────────────────────────────────────────────────────────────────────────────────

export const DEFAULT_METADATA_POLICY: MetadataPolicy = {
  authTTLMs: 86_400_000,
  namesRefreshMs: 3_600_000,
  datasetRefreshAfterMs: 3_600_000,
  datasetExpireAfterMs: 10_800_000,
  datasetUpdateMode: 'PREFETCH_QUERIED',
  deleteUnavailableDatasets: true,
  autoPromoteDatasets: false,
};

const POLICY_MS = ['authTTLMs', 'namesRefreshMs', 'datasetRefreshAfterMs', 'datasetExpireAfterMs'] as const;
const UPDATE_MODES = ['PREFETCH', 'PREFETCH_QUERIED', 'INLINE'];

/** A metadata policy with the spec's defaults for whatever was not sent; zero values also mean "default". */
function metadataPolicy(value: unknown): MetadataPolicy {
  const policy = { ...DEFAULT_METADATA_POLICY };
  if (value === undefined || value === null) return policy;
  const v = asObjectAt(value, 'metadataPolicy');
  for (const f of POLICY_MS) {
    if (v[f] == null) continue;
    const ms = typeof v[f] === 'string' ? Number(v[f]) : v[f];
    if (typeof ms !== 'number' || !Number.isInteger(ms)) throw invalidAt(`metadataPolicy.${f}`);
    if (ms === 0) continue;
    if (ms < 60_000) throw badRequest(`Source metadata policy ${f} must be greater than or equal to 60000.`);
    policy[f] = ms;
  }
  if (v.datasetUpdateMode != null) {
    if (typeof v.datasetUpdateMode !== 'string' || !UPDATE_MODES.includes(v.datasetUpdateMode)) {
      throw invalidAt('metadataPolicy.datasetUpdateMode');
    }
    policy.datasetUpdateMode = v.datasetUpdateMode;
  }
  for (const f of ['deleteUnavailableDatasets', 'autoPromoteDatasets'] as const) {
    if (v[f] == null) continue;
    if (typeof v[f] !== 'boolean') throw invalidAt(`metadataPolicy.${f}`);
    policy[f] = v[f];
  }
  return policy;
}

function asObjectAt(value: unknown, at: string): Body {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalidAt(at);
  return value as Body;
}

/** Source-level settings; a PUT that leaves one out resets it to the spec's default (0 / false). */
function sourceSettings(b: Body): SourceSettings {
  const num = (f: string): number => {
    if (b[f] == null) return 0;
    if (typeof b[f] !== 'number') throw invalidAt(f);
    return b[f] as number;
  };
  const bool = (f: string): boolean => {
    if (b[f] == null) return false;
    if (typeof b[f] !== 'boolean') throw invalidAt(f);
    return b[f] as boolean;
  };
  const str = (f: string): string | undefined => {
    if (b[f] == null) return undefined;
    if (typeof b[f] !== 'string') throw invalidAt(f);
    return b[f] as string;
  };
  return {
    accelerationGracePeriodMs: num('accelerationGracePeriodMs'),
    accelerationRefreshPeriodMs: num('accelerationRefreshPeriodMs'),
    accelerationNeverExpire: bool('accelerationNeverExpire'),
    accelerationNeverRefresh: bool('accelerationNeverRefresh'),
    allowCrossSourceSelection: bool('allowCrossSourceSelection'),
    disableMetadataValidityCheck: bool('disableMetadataValidityCheck'),
    accelerationActivePolicyType: str('accelerationActivePolicyType'),
    accelerationRefreshSchedule: str('accelerationRefreshSchedule'),
    description: str('description'),
  };
}

/**
 * A NAS source needs a folder to serve. A missing `path` is refused the way a plugin that fails to start is
 * (§6.1 `Failed to … source with name <n>.`); a path that does not exist is accepted and shows as state `bad`.
 */
function checkNasPath(type: string, config: Body, name: string, verb: 'create' | 'update'): void {
  if (type === 'NAS' && (typeof config.path !== 'string' || config.path === '')) {
    throw badRequest(`Failed to ${verb} source with name ${name}.`, {
      moreInfo: 'A NAS source needs config.path.',
    });
  }
}

function createSource(cx: CatalogContext, p: Principal, b: Body): Record<string, unknown> {
  const { store } = cx;
  if (!p.admin) throw forbidden();
  if (b.id != null) throw badRequest('Source id is immutable.');
  if (b.tag != null) throw badRequest('Source tag is immutable.');
  if (b.name == null || b.name === '') throw badRequest('Source name is required.');
  if (typeof b.name !== 'string') throw invalidAt('name');
  const name = b.name;
  if (!/^[^."@]+$/.test(name)) {
    throw validationError('name', 'Source name can not contain periods, double quotes or @.');
  }
  const type = checkSourceType(b.type, cx.edition);
  // A placeholder sent on create has no stored secret behind it: the secret stays unset.
  const config = applyStoredSecrets(
    type,
    normalizeConfig(type, b.config),
    undefined,
    store.secretPlaceholder,
  );
  checkNasPath(type, config, name, 'create');
  const policy = metadataPolicy(b.metadataPolicy);
  const settings = sourceSettings(b);
  if (store.at([name])) throw conflict(`A source with the name [${name}] already exists.`);
  const source: SourceEntity = store.insert({
    ...store.stamp(),
    kind: 'source',
    path: [name],
    type,
    config,
    metadataPolicy: policy,
    settings,
  });
  return renderEntity(store, source, {});
}

/** A source present from the start (the `Samples` NAS source over `options.samplesDir`). */
export function seedNasSource(store: CatalogStore, name: string, dir: string): SourceEntity {
  return store.insert({
    ...store.stamp(),
    kind: 'source',
    path: [name],
    type: 'NAS',
    config: { path: dir },
    // The samples are queried as they are, before anything is promoted (the help's first query is
    // `SELECT * FROM Samples.sales."2024.csv"`): the source formats a file into a table when a query names it.
    metadataPolicy: { ...DEFAULT_METADATA_POLICY, autoPromoteDatasets: true },
    settings: sourceSettings({}),
  });
}

// ── Promote ─────────────────────────────────────────────────────────────────────────────────────────────

const FORMAT_TYPES = [
  'Text',
  'Parquet',
  'JSON',
  'Avro',
  'Excel',
  'XLS',
  'Iceberg',
  'Delta',
  'HttpLog',
  'Unknown',
];
const READABLE: Record<string, FileFormat> = { Text: 'csv', Parquet: 'parquet', JSON: 'json' };

/** Text defaults of the real FileFormat (docs/api-facts.md §5.4). */
const TEXT_DEFAULTS = {
  fieldDelimiter: ',',
  lineDelimiter: '\r\n',
  quote: '"',
  comment: '#',
  escape: '"',
  skipFirstLine: false,
  extractHeader: false,
  trimHeader: true,
  autoGenerateColumnNames: true,
};

/** Builds a table's `format` from the request, checking that the emulator can read the files with it. */
function tableFormat(
  value: unknown,
  target: { path: string[]; disk: DiskEntry },
): { format: Record<string, unknown>; file: PromotedFile } {
  const f = asObjectAt(value, 'format');
  if (typeof f.type !== 'string') throw invalidAt('format');
  if (!FORMAT_TYPES.includes(f.type)) throw badRequest(`An invalid value was found: ${f.type}`);
  const readable = READABLE[f.type];
  // Emulator limit, not a service rule: only what DuckDB reads for the jobs area can be promoted.
  if (!readable) throw badRequest(`The emulator cannot read tables of format [${f.type}].`);
  const { path, disk } = target;
  const isFolder = disk.isDir;
  const matches = isFolder ? folderHasFormat(disk.abs, readable) : fileFormatOf(disk.name) === readable;
  if (!matches) {
    // The real service fails while reading the metadata; the emulator checks file extensions up front.
    throw badRequest(`Unable to read [${dottedPath(path)}] as format [${f.type}].`);
  }
  const options: Record<string, unknown> = readable === 'csv' ? { ...TEXT_DEFAULTS } : {};
  for (const [k, v] of Object.entries(f)) {
    if (k === 'type' || k === 'ctime' || k === 'isFolder' || k === 'location' || v == null) continue;
    const expected = typeof (TEXT_DEFAULTS as Record<string, unknown>)[k];
    if (readable === 'csv' && expected !== 'undefined' && typeof v !== expected) {
      throw invalidAt(`format.${k}`);
    }
    options[k] = v;
  }
  const format = {
    type: FORMAT_TYPE_OF[readable],
    ...options,
    ctime: disk.mtimeMs,
    isFolder,
    // The real location is the file's path in its filesystem; for NAS that is the absolute path on disk.
    location: disk.abs,
  };
  const csv =
    readable === 'csv'
      ? {
          delimiter: String(options.fieldDelimiter),
          header: options.extractHeader === true,
          skipFirstLine: options.skipFirstLine === true,
        }
      : undefined;
  return { format, file: { abs: disk.abs, isFolder, format: readable, ...(csv ? { csv } : {}) } };
}

export async function promote(
  cx: CatalogContext,
  p: Principal,
  id: string,
  body: unknown,
): Promise<EmuResponse> {
  const { store } = cx;
  if (!p.admin) throw forbidden();
  const b = asObject(body);
  const node = store.resolveId(id);
  if (!node) {
    if (!id.startsWith(INTERNAL_ID_PREFIX)) throw notFound(`Could not find entity with id [${id}]`);
    const path = id.slice(INTERNAL_ID_PREFIX.length).split('/').filter(Boolean);
    throw badRequest(`Could not find entity to promote with path [${listString(path)}]`);
  }
  if (b.entityType !== 'dataset' || b.type !== 'PHYSICAL_DATASET') {
    throw badRequest('Promoting can only create physical datasets.');
  }
  const requested = stringList(b.path, 'path') ?? [];
  if (!samePathIgnoringCase(requested, nodePath(node))) {
    throw badRequest('Entity id does not match the path specified in the dataset.');
  }
  if (b.format == null) throw badRequest('To promote a dataset, format settings are required.');
  if (node.kind === 'entity') {
    throw badRequest(`Can only promote a folder or a file but found [${nsType(node.entity)}]`);
  }
  const table = await insertTable(
    cx,
    node,
    b.format,
    b.accelerationRefreshPolicy == null
      ? undefined
      : asObjectAt(b.accelerationRefreshPolicy, 'accelerationRefreshPolicy'),
  );
  return ok(renderEntity(store, table, {}));
}

/** A file or folder of a NAS source made a table with `format` (the request's, or the one detected). */
async function insertTable(
  cx: CatalogContext,
  node: DiskNode,
  formatBody: unknown,
  accelerationRefreshPolicy?: Record<string, unknown>,
): Promise<DatasetEntity> {
  const { format, file } = tableFormat(formatBody, node);
  const fields = await cx.probe.probe(file.abs, file.isFolder, file.format, file.csv);
  return cx.store.insert({
    ...cx.store.stamp(),
    kind: 'dataset',
    type: 'PHYSICAL_DATASET',
    path: [...node.path],
    format,
    file,
    fields,
    accelerationRefreshPolicy,
  });
}

/**
 * A source whose metadata policy has `autoPromoteDatasets` ("automatically format files into tables when users
 * issue queries") makes a table of a file or folder the first time a query names it, in the format its files'
 * extension says, as the service's format detection does; a name of no such source, or of files of no one
 * readable format, is left for the query to fail on. A `.csv` file's first line is read as its column names
 * (the service's detected text format for the extension; an emulator choice where releases differ).
 */
export async function autoPromote(cx: CatalogContext, paths: readonly string[][]): Promise<void> {
  for (const path of paths) {
    const node = cx.store.resolvePath(path);
    if (!node || node.kind === 'entity') continue;
    const source = node.source;
    if (!source.metadataPolicy.autoPromoteDatasets) continue;
    const detected = node.disk.isDir
      ? (['csv', 'parquet', 'json'] as const).filter((f) => folderHasFormat(node.disk.abs, f))
      : [fileFormatOf(node.disk.name)].filter((f) => f !== undefined);
    if (detected.length !== 1) continue;
    const type = FORMAT_TYPE_OF[detected[0]!];
    await insertTable(cx, node, type === 'Text' ? { type, extractHeader: true } : { type });
  }
}

// ── Update ──────────────────────────────────────────────────────────────────────────────────────────────

const givenTag = (b: Body): string => (b.tag == null ? 'null' : String(b.tag));

export async function updateEntity(
  cx: CatalogContext,
  p: Principal,
  id: string,
  body: unknown,
): Promise<EmuResponse> {
  const { store } = cx;
  const b = asObject(body);
  // docs/api-facts.md §5.5: IllegalArgumentExceptions of the update path surface as 404 with their text.
  if (b.id == null) throw notFound('Entity id is required.');
  if (b.id !== id) throw notFound('Ids must match.');
  const node = store.resolveId(id);
  const wantsDataset = b.entityType === 'dataset';
  if (!node) {
    throw notFound(
      wantsDataset ? `Could not find dataset with id [${id}]` : `Could not find entity with id [${id}]`,
    );
  }
  if (node.kind !== 'entity' || node.entity.kind === 'home') {
    throw badRequest(`Catalog item [${id}] of type [${className(node)}] can not be edited.`);
  }
  const e = node.entity;
  if (b.entityType !== e.kind) {
    throw notFound(
      wantsDataset ? `Could not find dataset with id [${id}]` : `Could not find entity with id [${id}]`,
    );
  }
  switch (e.kind) {
    case 'space':
      if (!p.admin) throw forbidden();
      if (b.name !== e.path[0]) throw notFound('Space name is immutable.');
      checkNamespaceTag(e, b);
      break;
    case 'folder':
      requireWrite(store, p, e.path);
      if (!Array.isArray(b.path) || !samePath(b.path as string[], e.path)) {
        throw notFound('Folder path is immutable.');
      }
      checkNamespaceTag(e, b);
      break;
    case 'source':
      if (!p.admin) throw forbidden();
      updateSource(e, b, store.secretPlaceholder);
      break;
    case 'dataset':
      await updateDataset(cx, p, e, b);
      break;
  }
  store.touch(e);
  // The service re-reads the entity without its children (§5.5).
  return ok(renderEntity(store, e, { exclude: true }));
}

function checkNamespaceTag(e: NsEntity, b: Body): void {
  if (b.tag !== e.tag) {
    throw conflict(`tried to update version ${givenTag(b)}, found previous version ${e.tag}`);
  }
}

function updateSource(s: SourceEntity, b: Body, placeholder?: string): void {
  const name = s.path[0]!;
  if (b.name !== name) throw notFound('Source name is immutable.');
  if (b.type !== s.type) throw notFound('Source type is immutable.');
  if (b.tag !== s.tag) {
    throw conflict(
      `Source [${name}] has been updated, and the given configuration is out of date (current tag: ${s.tag}, given: ${givenTag(b)})`,
    );
  }
  // A PUT without `config` keeps the stored one (lenient: the real service would fail to bind a null config).
  const config =
    b.config === undefined
      ? s.config
      : applyStoredSecrets(s.type, normalizeConfig(s.type, b.config), s.config, placeholder);
  checkNasPath(s.type, config, name, 'update');
  const policy = metadataPolicy(b.metadataPolicy);
  const settings = sourceSettings(b);
  s.config = config;
  s.metadataPolicy = policy;
  s.settings = settings;
}

async function updateDataset(cx: CatalogContext, p: Principal, d: DatasetEntity, b: Body): Promise<void> {
  const { store } = cx;
  if (b.type !== d.type) throw notFound('Dataset type can not be modified');
  const path = stringList(b.path, 'path');
  if (d.type === 'PHYSICAL_DATASET') {
    if (!p.admin) throw forbidden();
    if (!path || !samePath(path, d.path)) throw notFound('Dataset path can not be modified.');
    if (b.tag !== d.tag) throw conflict(`Tried to update version ${givenTag(b)}, found tag ${d.tag}`);
    if (b.format != null && d.file) {
      // New format settings are checked against the file as it is now on disk.
      const disk = statPath(d.file.abs);
      if (!disk) {
        throw badRequest(
          `Unable to read [${dottedPath(d.path)}] as format [${String(asObjectAt(b.format, 'format').type)}].`,
        );
      }
      const { format, file } = tableFormat(b.format, { path: d.path, disk });
      d.format = format;
      d.file = file;
      d.fields = (await cx.probe.probe(file.abs, file.isFolder, file.format, file.csv)) ?? d.fields;
    }
    if (b.accelerationRefreshPolicy != null) {
      d.accelerationRefreshPolicy = asObjectAt(b.accelerationRefreshPolicy, 'accelerationRefreshPolicy');
    }
    return;
  }
  requireWrite(store, p, d.path);
  if (b.tag !== d.tag) throw conflict(`Tried to update version ${givenTag(b)}, found tag ${d.tag}`);
  // Views may be renamed or moved by changing `path` (§5.5); the id stays.
  const target = path && !samePath(path, d.path) ? viewTarget(store, p, path, d) : undefined;
  const { sql, sqlContext } = viewSql(store, b);
  if (target) store.move(d, target);
  d.sql = sql;
  d.sqlContext = sqlContext;
}

// ── Delete ──────────────────────────────────────────────────────────────────────────────────────────────

export function deleteEntity(cx: CatalogContext, p: Principal, id: string, tag: string | null): EmuResponse {
  const { store } = cx;
  const node = store.resolveId(id);
  if (!node) throw notFound(`Could not find entity with id [${id}].`);
  if (node.kind !== 'entity' || node.entity.kind === 'home') {
    throw badRequest(`Catalog item [${id}] of type [${className(node)}] can not be deleted.`);
  }
  const e = node.entity;
  if (e.kind === 'space' || e.kind === 'source') {
    if (!p.admin) throw forbidden();
  } else requireWrite(store, p, e.path);
  // Without `tag` the current version is used: no concurrency check (§5.6).
  if (tag !== null && tag !== e.tag) {
    throw conflict(`Cannot delete, expected tag ${tag} but found tag ${e.tag}`);
  }
  // A promoted table reverts to its plain file or folder: removing the dataset record is exactly that.
  store.remove(e);
  return noContent();
}
