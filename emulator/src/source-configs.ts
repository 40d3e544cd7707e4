// Source types of the spec ("Source configuration by source type"): which config fields each type has, which
// of them are secrets, and how a config is checked, masked and merged on update.
import { badRequest } from './http.js';

/**
 * What the service shows instead of a stored secret, and what a client sends back to keep it (§6.1). Real
 * servers use other texts: `EmulatorOptions.secretPlaceholder` changes it.
 */
export const SECRET_PLACEHOLDER = '$SERVICE_EXISTING_VALUE$';

type FieldKind =
  | 'string'
  | 'number'
  | 'boolean'
  | 'secret'
  | 'strings'
  /** `propertyList`: `[{name, value}]`. */
  | 'props'
  /** `hostList`: `[{hostname, port}]`. */
  | 'hosts'
  | readonly string[];

type FieldTable = Record<string, FieldKind>;

const AUTH = ['ANONYMOUS', 'MASTER'] as const;

const JDBC: FieldTable = {
  username: 'string',
  password: 'secret',
  hostname: 'string',
  port: 'number',
  authenticationType: AUTH,
  fetchSize: 'number',
};

const ADLS: FieldTable = {
  mode: ['CLIENT_KEY'],
  accountName: 'string',
  clientId: 'string',
  clientKeyRefreshUrl: 'string',
  clientKeyPassword: 'secret',
};

const SOURCE_TYPES: Record<string, FieldTable> = {
  AMAZONELASTIC: {
    hostname: 'string',
    port: 'number',
    authenticationType: ['ACCESS_KEY', 'EC2_METADATA', 'NONE'],
    accessKey: 'string',
    accessSecret: 'secret',
    overwriteRegion: 'boolean',
    regionName: 'string',
    scriptsEnabled: 'boolean',
    showHiddenIndices: 'boolean',
    showIdColumn: 'boolean',
    readTimeoutMillis: 'number',
    scrollTimeoutMillis: 'number',
    usePainless: 'boolean',
    scrollSize: 'number',
    allowPushdownOnNormalizedOrAnalyzedFields: 'boolean',
    warnOnRowCountMismatch: 'boolean',
    encryptionValidationMode: [
      'CERTIFICATE_AND_HOSTNAME_VALIDATION',
      'CERTIFICATE_ONLY_VALIDATION',
      'NO_VALIDATION',
    ],
  },
  REDSHIFT: {
    username: 'string',
    password: 'secret',
    authenticationType: AUTH,
    fetchSize: 'number',
    connectionString: 'string',
  },
  S3: {
    accessKey: 'string',
    accessSecret: 'secret',
    secure: 'boolean',
    externalBucketList: 'strings',
    propertyList: 'props',
  },
  // The spec shows both spellings of the Gen1 data-lake code; both are accepted and stored as sent.
  ADLS,
  ADL: ADLS,
  // One table for both AZURE_STORAGE variants: shared access key (accessKey) and OAuth 2.0 (clientSecret).
  AZURE_STORAGE: {
    accountKind: ['STORAGE_V1', 'STORAGE_V2'],
    accountName: 'string',
    accessKey: 'secret',
    enableSSL: 'boolean',
    rootPath: 'string',
    containers: 'strings',
    propertyList: 'props',
    credentialsType: ['ACCESS_KEY', 'AZURE_ACTIVE_DIRECTORY'],
    clientId: 'string',
    tokenEndpoint: 'string',
    clientSecret: 'secret',
  },
  ELASTIC: {
    username: 'string',
    password: 'secret',
    hostList: 'hosts',
    authenticationType: AUTH,
    readTimeoutMillis: 'number',
    scrollTimeoutMillis: 'number',
    scriptsEnabled: 'boolean',
    showHiddenIndices: 'boolean',
    sslEnabled: 'boolean',
    showIdColumn: 'boolean',
    usePainless: 'boolean',
    useWhitelist: 'boolean',
    scrollSize: 'number',
  },
  HDFS: {
    enableImpersonation: 'boolean',
    hostname: 'string',
    port: 'number',
    rootPath: 'string',
    propertyList: 'props',
  },
  HIVE: {
    hostname: 'string',
    port: 'number',
    kerberosPrincipal: 'string',
    enableSasl: 'boolean',
    propertyList: 'props',
  },
  MAPRFS: {
    clusterName: 'string',
    enableImpersonation: 'boolean',
    secure: 'boolean',
    rootPath: 'string',
    propertyList: 'props',
  },
  MSSQL: { ...JDBC, database: 'string', showOnlyConnectiondatabase: 'boolean' },
  MONGO: {
    username: 'string',
    password: 'secret',
    hostList: 'hosts',
    useSsl: 'boolean',
    authenticationType: AUTH,
    authDatabase: 'string',
    authenticationTimeoutMillis: 'number',
    secondaryReadsOnly: 'boolean',
    subpartitionSize: 'number',
    propertyList: 'props',
  },
  MYSQL: JDBC,
  // NAS: the real NASConf also has allowCreateDrop, defaultCtasFormat, isPartitionInferenceEnabled; they are
  // kept as sent (unknown fields pass through) but not defaulted, so a config reads back as it was written.
  NAS: { path: 'string' },
  ORACLE: { ...JDBC, instance: 'string' },
  POSTGRES: { ...JDBC, databaseName: 'string' },
  // Deprecated types are still accepted, as the spec lists them with their fields.
  HBASE: { zkQuorum: 'string', port: 'number', isSizeCalcEnabled: 'boolean', propertyList: 'props' },
  DB2: { ...JDBC, databaseName: 'string' },
};

/** Types the spec marks Enterprise-only: a community emulator does not know them. */
const ENTERPRISE_ONLY = new Set(['DB2']);

/** Internal plugin types a client may not create (§6.1 `Source with connection type <T> cannot be …`). */
const INTERNAL_TYPES = new Set(['INTERNAL', 'HOME', 'ACCELERATION']);

export function sourceTypeCodes(): string[] {
  return Object.keys(SOURCE_TYPES);
}

/** Throws the service's 400 for a type code it cannot create. */
export function checkSourceType(type: unknown, edition: 'enterprise' | 'community'): string {
  if (typeof type !== 'string' || type === '') throw badRequest('Source type is required.');
  if (INTERNAL_TYPES.has(type)) {
    throw badRequest(`Source with connection type ${type} cannot be created nor modified.`);
  }
  // An unknown code fails in Jackson's polymorphic lookup of the config class, before any service logic.
  if (!SOURCE_TYPES[type] || (edition === 'community' && ENTERPRISE_ONLY.has(type))) {
    throw badRequest(`An invalid value was found: ${type}`);
  }
  return type;
}

/**
 * Checks a config against its type's field table the way Jackson binds it: scalars are coerced (`"9200"` → 9200,
 * `"true"` → true, numbers → strings), anything else is `Invalid value found at: config.<field>`. Unknown fields
 * are kept (the emulator does not know every optional field of every plugin); nulls are dropped.
 */
export function normalizeConfig(type: string, config: unknown): Record<string, unknown> {
  if (config === undefined || config === null) return {};
  if (typeof config !== 'object' || Array.isArray(config)) throw invalidAt('config');
  const table = SOURCE_TYPES[type] ?? {};
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(config as Record<string, unknown>)) {
    if (value === null || value === undefined) continue;
    const kind = table[name];
    out[name] = kind ? coerce(value, kind, `config.${name}`) : value;
  }
  // Spec rule: the OAuth 2.0 variant of AZURE_STORAGE must use SSL.
  if (
    type === 'AZURE_STORAGE' &&
    out.credentialsType === 'AZURE_ACTIVE_DIRECTORY' &&
    out.enableSSL === false
  ) {
    throw invalidAt('config.enableSSL');
  }
  return out;
}

function coerce(value: unknown, kind: FieldKind, at: string): unknown {
  if (Array.isArray(kind)) {
    if (typeof value !== 'string' || !kind.includes(value)) throw invalidAt(at);
    return value;
  }
  switch (kind) {
    case 'string':
    case 'secret':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      throw invalidAt(at);
    case 'number':
      if (typeof value === 'number' && Number.isFinite(value)) return value;
      if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
      throw invalidAt(at);
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      throw invalidAt(at);
    case 'strings':
      if (!Array.isArray(value)) throw invalidAt(at);
      return value.map((v, i) => coerce(v, 'string', `${at}[${i}]`));
    case 'props':
      if (!Array.isArray(value)) throw invalidAt(at);
      return value.map((p, i) => {
        if (!p || typeof p !== 'object' || Array.isArray(p)) throw invalidAt(`${at}[${i}]`);
        const { name, value: v } = p as Record<string, unknown>;
        return {
          name: coerce(name ?? '', 'string', `${at}[${i}].name`),
          value: coerce(v ?? '', 'string', `${at}[${i}].value`),
        };
      });
    case 'hosts':
      if (!Array.isArray(value)) throw invalidAt(at);
      return value.map((h, i) => {
        if (!h || typeof h !== 'object' || Array.isArray(h)) throw invalidAt(`${at}[${i}]`);
        const { hostname, port } = h as Record<string, unknown>;
        const host: Record<string, unknown> = {
          hostname: coerce(hostname ?? '', 'string', `${at}[${i}].hostname`),
        };
        if (port !== undefined && port !== null) host.port = coerce(port, 'number', `${at}[${i}].port`);
        return host;
      });
    default:
      return value;
  }
}

const invalidAt = (at: string) => badRequest(`Invalid value found at: ${at}`);

function secretFields(type: string): string[] {
  return Object.entries(SOURCE_TYPES[type] ?? {})
    .filter(([, kind]) => kind === 'secret')
    .map(([name]) => name);
}

/** The config as every response shows it: set secrets become the placeholder, empty ones disappear (§6.1). */
export function maskSecrets(
  type: string,
  config: Record<string, unknown>,
  placeholder = SECRET_PLACEHOLDER,
): Record<string, unknown> {
  const out = structuredClone(config);
  for (const name of secretFields(type)) {
    if (typeof out[name] === 'string' && out[name] !== '') out[name] = placeholder;
    else delete out[name];
  }
  return out;
}

/**
 * Applies the stored secrets to an incoming config: the placeholder keeps the stored value, anything else
 * replaces it. A placeholder with nothing stored behind it (e.g. on create) leaves the secret unset.
 */
export function applyStoredSecrets(
  type: string,
  incoming: Record<string, unknown>,
  stored: Record<string, unknown> | undefined,
  placeholder = SECRET_PLACEHOLDER,
): Record<string, unknown> {
  const out = { ...incoming };
  for (const name of secretFields(type)) {
    if (out[name] !== placeholder) continue;
    if (stored && typeof stored[name] === 'string') out[name] = stored[name];
    else delete out[name];
  }
  return out;
}
