// Source types of the spec ("Source configuration by source type"): one zod schema per type, from which the
// field list shown by `dlake source types` and used by `--set` is read off, so no field is written twice.
//
// Each field schema carries its CLI type, secrecy and description in zod metadata (`.meta()`); requiredness is
// the schema's own (`.optional()` or not). Configs are loose objects: fields the spec does not list (the
// service has more, e.g. NAS `defaultCtasFormat`) are kept and sent as given.
//
// Positions taken where the spec is silent on what is required:
// - the fields that locate the data are required (JDBC `hostname` and `port`, NAS `path`, HDFS/HIVE `hostname`,
//   ELASTIC/MONGO a non-empty `hostList`, ORACLE `instance`, POSTGRES/DB2 `databaseName`, …); S3 needs nothing
//   (anonymous buckets and instance credentials exist);
// - credentials are required only when the chosen authentication needs them (`username`/`password` when
//   `authenticationType` is MASTER, AMAZONELASTIC `accessKey`/`accessSecret` when it is ACCESS_KEY);
// - a secret is required on create only: on update a secret left out keeps its stored value on the service.
// - `port` is a number 1-65535 or a string of digits (the spec's listings show both); it is sent as given.
import * as z from 'zod/mini';
import '../util/zod.js';
import { UsageError } from '../errors.js';
import type { ConfigFieldType as FieldType } from '../util/config-pairs.js';
import type { SOURCE_TYPE_CODES } from './source-type-codes.js';

export interface FieldInfo {
  name: string;
  type: FieldType;
  required: boolean;
  secret: boolean;
  enum?: string[];
  description?: string;
}

export interface SourceTypeInfo {
  /** The type code sent as the source's `type`. */
  code: string;
  label: string;
  /** Why the type cannot be used for new sources; absent for current types. */
  deprecated?: string;
  /** Set on an alternative spelling of another type's code (ADL for ADLS). */
  aliasOf?: string;
  schema: z.ZodMiniType<Record<string, unknown>>;
  fields: FieldInfo[];
}

/** What each field schema carries in its zod metadata. */
interface FieldMeta {
  fieldType: FieldType;
  secret: boolean;
  description?: string;
}

// ---- field builders: a zod schema with its CLI metadata and an error message that names what is expected

/** Each field schema's CLI metadata (a clone of a schema, e.g. by `.check()`, inherits it). */
const FIELD_META = z.registry<FieldMeta>();

function field<T extends z.ZodMiniType>(
  schema: T,
  fieldType: FieldType,
  description?: string,
  secret = false,
): T {
  const meta: FieldMeta = { fieldType, secret, ...(description === undefined ? {} : { description }) };
  FIELD_META.add(schema, meta);
  return schema;
}

const str = (description?: string) => field(z.string({ error: 'must be a string' }), 'string', description);
const secret = (description?: string) =>
  field(z.string({ error: 'must be a string' }), 'string', description, true);
const num = (description?: string) => field(z.number({ error: 'must be a number' }), 'number', description);
const bool = (description?: string) =>
  field(z.boolean({ error: 'must be true or false' }), 'boolean', description);
const oneOf = <const V extends readonly [string, ...string[]]>(values: V, description?: string) =>
  field(z.enum(values, { error: `must be one of ${values.join(', ')}` }), 'string', description);
const strings = (description?: string) =>
  field(
    z.array(z.string({ error: 'must be a string' }), { error: 'must be a list of strings' }),
    'string[]',
    description,
  );

const PORT_ERROR = { error: 'must be a port number (1-65535)' };
const isPort = (n: number) => Number.isInteger(n) && n >= 1 && n <= 65535;
const portValue = z.union(
  [
    z.number().check(z.refine(isPort, PORT_ERROR)),
    z.string().check(z.refine((s) => /^\d{1,5}$/.test(s) && isPort(Number(s)), PORT_ERROR)),
  ],
  PORT_ERROR,
);
const port = (description = 'TCP port (a number; a string of digits is sent as given)') =>
  field(portValue, 'number', description);

const hostEntry = z.looseObject(
  { hostname: z.string({ error: 'must be a string' }), port: portValue },
  { error: 'must be an object {hostname, port}' },
);
/** A non-empty list: ELASTIC and MONGO have nowhere to connect without a host. */
const hostList = (description = 'hosts as [{hostname, port}]') =>
  field(
    z
      .array(hostEntry, { error: 'must be a list of {hostname, port}' })
      .check(z.minLength(1, { error: 'must list at least one host' })),
    'hostList',
    description,
  );

const propertyEntry = z.looseObject(
  { name: z.string({ error: 'must be a string' }), value: z.string({ error: 'must be a string' }) },
  { error: 'must be an object {name, value}' },
);
const propertyList = (description = 'extra connection properties as [{name, value}]') =>
  field(z.array(propertyEntry, { error: 'must be a list of {name, value}' }), 'propertyList', description);

// ---- conditional requirements, checked even when other fields are wrong so that every problem is listed at once

/** Issues of this kind name a missing field; on update they are dropped for secrets (the service keeps them). */
const MISSING = 'missing';

type Condition = { field: string; value: string } | undefined;

function requireFields(names: string[], when?: Condition) {
  return (config: Record<string, unknown>, ctx: z.core.$RefinementCtx<Record<string, unknown>>) => {
    if (when && config[when.field] !== when.value) return;
    for (const name of names) {
      if (config[name] !== undefined && config[name] !== '') continue;
      const message = when ? `is required when ${when.field} is ${when.value}` : 'is required';
      ctx.addIssue({ code: 'custom', path: [name], message, params: { kind: MISSING }, input: config[name] });
    }
  };
}

/** Run the refinement whenever the input is an object, even if its fields have issues of their own. */
const onObjects = { when: (payload: { value: unknown }) => isRecord(payload.value) };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---- the types

const AUTH = ['ANONYMOUS', 'MASTER'] as const;
const MASTER: Condition = { field: 'authenticationType', value: 'MASTER' };
const FETCH_SIZE = 'rows fetched per round trip; 0 lets the service decide';

const credentials = {
  username: z.optional(str('required when authenticationType is MASTER')),
  password: z.optional(secret('required when authenticationType is MASTER')),
  authenticationType: z.optional(oneOf(AUTH)),
};

const jdbc = {
  ...credentials,
  hostname: str('database server host'),
  port: port(),
  fetchSize: z.optional(num(FETCH_SIZE)),
};

const jdbcSource = <S extends z.core.$ZodLooseShape>(shape: S) =>
  z.looseObject(shape).check(z.superRefine(requireFields(['username', 'password'], MASTER), onObjects));

const AMAZONELASTIC = z
  .looseObject({
    hostname: str('domain endpoint'),
    port: z.optional(port()),
    authenticationType: z.optional(oneOf(['ACCESS_KEY', 'EC2_METADATA', 'NONE'])),
    accessKey: z.optional(str('required when authenticationType is ACCESS_KEY')),
    accessSecret: z.optional(secret('required when authenticationType is ACCESS_KEY')),
    overwriteRegion: z.optional(bool()),
    regionName: z.optional(str()),
    scriptsEnabled: z.optional(bool()),
    showHiddenIndices: z.optional(bool()),
    showIdColumn: z.optional(bool()),
    readTimeoutMillis: z.optional(num()),
    scrollTimeoutMillis: z.optional(num()),
    usePainless: z.optional(bool()),
    scrollSize: z.optional(num()),
    allowPushdownOnNormalizedOrAnalyzedFields: z.optional(bool()),
    warnOnRowCountMismatch: z.optional(bool()),
    encryptionValidationMode: z.optional(
      oneOf(['CERTIFICATE_AND_HOSTNAME_VALIDATION', 'CERTIFICATE_ONLY_VALIDATION', 'NO_VALIDATION']),
    ),
  })
  .check(
    z.superRefine(
      requireFields(['accessKey', 'accessSecret'], { field: 'authenticationType', value: 'ACCESS_KEY' }),
      onObjects,
    ),
  );

const REDSHIFT = z
  .looseObject({
    ...credentials,
    connectionString: str('JDBC connection string'),
    fetchSize: z.optional(num(FETCH_SIZE)),
  })
  .check(z.superRefine(requireFields(['username', 'password'], MASTER), onObjects));

const S3 = z.looseObject({
  accessKey: z.optional(str()),
  accessSecret: z.optional(secret()),
  secure: z.optional(bool('encrypt connections (SSL)')),
  externalBucketList: z.optional(strings('buckets outside the account to show')),
  propertyList: z.optional(propertyList()),
});

const ADLS = z
  .looseObject({
    mode: z.optional(field(z.literal('CLIENT_KEY', { error: 'must be CLIENT_KEY' }), 'string')),
    accountName: str(),
    clientId: str(),
    clientKeyRefreshUrl: str('token endpoint of the directory service'),
    clientKeyPassword: z.optional(secret()),
  })
  .check(z.superRefine(requireFields(['clientKeyPassword']), onObjects));

const azureCommon = {
  accountKind: z.optional(oneOf(['STORAGE_V1', 'STORAGE_V2'])),
  accountName: str(),
  rootPath: z.optional(str('"/" shows all accessible containers, or a container path')),
  containers: z.optional(strings('when set, only these containers are available')),
  propertyList: z.optional(propertyList()),
};

const AZURE_SHARED_KEY = z
  .looseObject({
    ...azureCommon,
    credentialsType: z.optional(
      field(
        z.literal('ACCESS_KEY', { error: 'must be ACCESS_KEY or AZURE_ACTIVE_DIRECTORY' }),
        'string',
        'ACCESS_KEY (shared access key, the default) or AZURE_ACTIVE_DIRECTORY (OAuth 2.0)',
      ),
    ),
    accessKey: z.optional(secret('shared access key')),
    enableSSL: z.optional(bool()),
  })
  .check(z.superRefine(requireFields(['accessKey']), onObjects));

const AZURE_OAUTH = z
  .looseObject({
    ...azureCommon,
    credentialsType: field(z.literal('AZURE_ACTIVE_DIRECTORY'), 'string'),
    clientId: str('OAuth 2.0: application (client) id'),
    tokenEndpoint: str('OAuth 2.0: the v1.0 token endpoint'),
    clientSecret: z.optional(secret('OAuth 2.0: client secret')),
    // The spec requires SSL for OAuth 2.0; absent means the service default, which is SSL on.
    enableSSL: z.optional(
      field(z.literal(true, { error: 'must be true with OAuth 2.0 (AZURE_ACTIVE_DIRECTORY)' }), 'boolean'),
    ),
  })
  .check(z.superRefine(requireFields(['clientSecret']), onObjects));

// Both variants share the code AZURE_STORAGE; `credentialsType` tells them apart, absent meaning shared key.
const AZURE_STORAGE = z.discriminatedUnion('credentialsType', [AZURE_SHARED_KEY, AZURE_OAUTH], {
  error: 'must be one of ACCESS_KEY, AZURE_ACTIVE_DIRECTORY',
});

const ELASTIC = z
  .looseObject({
    ...credentials,
    hostList: hostList(),
    readTimeoutMillis: z.optional(num()),
    scrollTimeoutMillis: z.optional(num()),
    scriptsEnabled: z.optional(bool()),
    showHiddenIndices: z.optional(bool()),
    sslEnabled: z.optional(bool()),
    showIdColumn: z.optional(bool()),
    usePainless: z.optional(bool()),
    useWhitelist: z.optional(bool()),
    scrollSize: z.optional(num()),
  })
  .check(z.superRefine(requireFields(['username', 'password'], MASTER), onObjects));

const HDFS = z.looseObject({
  hostname: str('NameNode host'),
  port: z.optional(port()),
  enableImpersonation: z.optional(bool()),
  rootPath: z.optional(str()),
  propertyList: z.optional(propertyList()),
});

const HIVE = z.looseObject({
  hostname: str('metastore host'),
  port: z.optional(port()),
  kerberosPrincipal: z.optional(str()),
  enableSasl: z.optional(bool()),
  propertyList: z.optional(propertyList()),
});

const MAPRFS = z.looseObject({
  clusterName: str(),
  enableImpersonation: z.optional(bool()),
  secure: z.optional(bool()),
  rootPath: z.optional(str()),
  propertyList: z.optional(propertyList()),
});

const MSSQL = jdbcSource({
  ...jdbc,
  database: z.optional(str()),
  showOnlyConnectiondatabase: z.optional(bool()),
});

const MONGO = z
  .looseObject({
    ...credentials,
    hostList: hostList(),
    useSsl: z.optional(bool()),
    authDatabase: z.optional(str()),
    authenticationTimeoutMillis: z.optional(num()),
    secondaryReadsOnly: z.optional(bool()),
    subpartitionSize: z.optional(num()),
    propertyList: z.optional(propertyList()),
  })
  .check(z.superRefine(requireFields(['username', 'password'], MASTER), onObjects));

const MYSQL = jdbcSource(jdbc);

const NAS = z.looseObject({
  path: str('filesystem root of the source'),
  allowCreateDrop: z.optional(bool('allow CREATE TABLE … AS and DROP TABLE in this source')),
});

const ORACLE = jdbcSource({ ...jdbc, instance: str('SID') });

const POSTGRES = jdbcSource({ ...jdbc, databaseName: str() });

const HBASE = z.looseObject({
  zkQuorum: str('ZooKeeper hosts, comma-separated'),
  port: z.optional(port()),
  isSizeCalcEnabled: z.optional(bool()),
  propertyList: z.optional(propertyList()),
});

const DB2 = jdbcSource({ ...jdbc, databaseName: str() });

/** The schema of each type code, with its precise config type for callers that know the type. */
const SOURCE_SCHEMAS = {
  AMAZONELASTIC,
  REDSHIFT,
  S3,
  ADLS,
  AZURE_STORAGE,
  ELASTIC,
  HDFS,
  HIVE,
  MAPRFS,
  MSSQL,
  MONGO,
  MYSQL,
  NAS,
  ORACLE,
  POSTGRES,
  HBASE,
  DB2,
} as const;

type SourceTypeCode = keyof typeof SOURCE_SCHEMAS;
// The light list the command tree completes from names exactly these types (a compile-time check).
const _sameCodes: Record<(typeof SOURCE_TYPE_CODES)[number], unknown> &
  Record<SourceTypeCode, unknown> &
  Record<Exclude<SourceTypeCode, (typeof SOURCE_TYPE_CODES)[number]>, never> = SOURCE_SCHEMAS;
void _sameCodes;

const LABELS: Record<SourceTypeCode, string> = {
  AMAZONELASTIC: 'Amazon Elasticsearch Service',
  REDSHIFT: 'Amazon Redshift',
  S3: 'Amazon S3',
  ADLS: 'Azure Data Lake Storage Gen1',
  AZURE_STORAGE: 'Azure Storage',
  ELASTIC: 'Elasticsearch',
  HDFS: 'HDFS',
  HIVE: 'Hive',
  MAPRFS: 'MapR-FS',
  MSSQL: 'Microsoft SQL Server',
  MONGO: 'MongoDB',
  MYSQL: 'MySQL',
  NAS: 'NAS',
  ORACLE: 'Oracle',
  POSTGRES: 'PostgreSQL',
  HBASE: 'HBase',
  DB2: 'IBM Db2',
};

const DEPRECATED: Partial<Record<SourceTypeCode, string>> = {
  HBASE: 'not supported for new sources',
  DB2: 'not supported for new sources (Enterprise edition)',
};

// ---- reading the field list off a schema

function fieldInfo(name: string, schema: z.ZodMiniType): FieldInfo {
  const required = !(schema instanceof z.ZodMiniOptional);
  const inner = schema instanceof z.ZodMiniOptional ? (schema._zod.def.innerType as z.ZodMiniType) : schema;
  const meta = FIELD_META.get(inner);
  if (!meta?.fieldType) throw new Error(`source-types: field ${name} lacks its metadata`);
  const values =
    inner instanceof z.ZodMiniEnum
      ? (inner.options as string[])
      : inner instanceof z.ZodMiniLiteral
        ? [...inner._zod.def.values].map(String)
        : undefined;
  return {
    name,
    type: meta.fieldType,
    required,
    secret: meta.secret,
    ...(values && meta.fieldType === 'string' ? { enum: values } : {}),
    ...(meta.description === undefined ? {} : { description: meta.description }),
  };
}

function objectFields(schema: z.ZodMiniObject): FieldInfo[] {
  return Object.entries(schema.shape).map(([name, s]) => fieldInfo(name, s as z.ZodMiniType));
}

/**
 * The fields of a union of variants: a field is required only when every variant requires it, its allowed
 * values are those of all variants together, and its description is the first one given.
 */
function mergeVariants(variants: FieldInfo[][]): FieldInfo[] {
  const merged = new Map<string, FieldInfo>();
  for (const fields of variants) {
    for (const f of fields) {
      const seen = merged.get(f.name);
      if (!seen) {
        merged.set(f.name, { ...f });
        continue;
      }
      seen.secret ||= f.secret;
      seen.description ??= f.description;
      if (seen.enum && f.enum) seen.enum = [...new Set([...seen.enum, ...f.enum])];
      else delete seen.enum;
    }
  }
  for (const f of merged.values())
    f.required = variants.every((fields) => fields.some((g) => g.name === f.name && g.required));
  return [...merged.values()];
}

function fieldsOf(schema: z.ZodMiniType): FieldInfo[] {
  if (schema instanceof z.ZodMiniDiscriminatedUnion) {
    return mergeVariants((schema._zod.def.options as unknown as z.ZodMiniObject[]).map(objectFields));
  }
  return objectFields(schema as z.ZodMiniObject);
}

function buildSourceTypes(): Record<string, SourceTypeInfo> {
  const types: Record<string, SourceTypeInfo> = {};
  for (const [code, schema] of Object.entries(SOURCE_SCHEMAS) as [SourceTypeCode, z.ZodMiniType][]) {
    types[code] = {
      code,
      label: LABELS[code],
      ...(DEPRECATED[code] ? { deprecated: DEPRECATED[code] } : {}),
      schema: schema as z.ZodMiniType<Record<string, unknown>>,
      fields: fieldsOf(schema),
    };
  }
  // The spec writes the Gen1 data-lake code both as ADLS and as ADL, and does not say which the service
  // knows. Both are accepted with the same fields; the code is sent as the user spelled it, because
  // rewriting one into the other could turn a working request into a rejected one.
  types.ADL = { ...types.ADLS!, code: 'ADL', aliasOf: 'ADLS' };
  return types;
}

/** Every type of the spec by code, including the alias ADL. */
export const SOURCE_TYPES: Record<string, SourceTypeInfo> = buildSourceTypes();

/** The type of a code, case-insensitively (`s3` is S3); send `info.code`, the canonical spelling. */
export function findSourceType(type: string): SourceTypeInfo | undefined {
  return SOURCE_TYPES[type] ?? SOURCE_TYPES[type.toUpperCase()];
}

/** As findSourceType, but a code we do not know is the user's error, and the message lists the valid ones. */
export function getSourceType(type: string): SourceTypeInfo {
  const info = findSourceType(type);
  if (!info) {
    throw new UsageError(
      `unknown source type "${type}"; valid types: ${Object.keys(SOURCE_TYPES).join(', ')}`,
      { hint: { kind: 'source-types' } },
    );
  }
  return info;
}

export function secretFieldNames(type: string): string[] {
  return getSourceType(type)
    .fields.filter((f) => f.secret)
    .map((f) => f.name);
}

// ---- validation with one line per wrong field

interface ValidateOptions {
  /** Creating a new source: deprecated types are refused and secrets are required. */
  forCreate: boolean;
}

/**
 * The config checked against its type's schema; unknown fields are kept. Throws a UsageError naming every
 * wrong field in `details`, e.g. `config.authenticationType: must be one of ANONYMOUS, MASTER (got "FOO")`.
 */
export function validateSourceConfig(
  type: string,
  config: unknown,
  opts: ValidateOptions,
): Record<string, unknown> {
  const info = getSourceType(type);
  if (opts.forCreate && info.deprecated) {
    throw new UsageError(`${info.code} is deprecated and ${info.deprecated}`);
  }
  const result = info.schema.safeParse(config);
  if (result.success) return result.data;
  const secrets = new Set(info.fields.filter((f) => f.secret).map((f) => f.name));
  const issues = result.error.issues.filter((issue) => opts.forCreate || !isMissingSecret(issue, secrets));
  if (issues.length === 0) return config as Record<string, unknown>;
  throw new UsageError(`invalid config for source type ${info.code}`, {
    details: issues.map((issue) => describeIssue(issue, config, secrets)),
    hint: { kind: 'source-types', type: info.code },
  });
}

function isMissingSecret(issue: z.core.$ZodIssue, secrets: Set<string>): boolean {
  const params = issue.code === 'custom' ? (issue.params as { kind?: string } | undefined) : undefined;
  return params?.kind === MISSING && issue.path.length === 1 && secrets.has(String(issue.path[0]));
}

function describeIssue(issue: z.core.$ZodIssue, config: unknown, secrets: Set<string>): string {
  const at = ['config', ...issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))].join(
    '',
  );
  const value = valueAt(config, issue.path);
  if (issue.path.length === 0 && !isRecord(config)) return `config: must be an object (got ${show(config)})`;
  if (value === undefined && issue.code !== 'custom') return `${at}: is required`;
  const isSecret = secrets.has(String(issue.path[0]));
  const got = value === undefined || isSecret ? '' : ` (got ${show(value)})`;
  return `${at}: ${issue.message}${got}`;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
