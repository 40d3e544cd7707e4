import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  findSourceType,
  getSourceType,
  SOURCE_TYPES,
  secretFieldNames,
  validateSourceConfig,
} from '../../src/api/source-types.js';
import { UsageError } from '../../src/errors.js';
import { applySetPairs } from '../../src/util/config-pairs.js';
import { thrown } from '../helpers/thrown.js';

const props = [{ name: 'fs.s3a.endpoint', value: 'http://minio:9000' }];
const jdbc = {
  hostname: 'db.example.com',
  port: 5432,
  authenticationType: 'MASTER',
  username: 'u',
  password: 'pw',
};

/** A good config for every type code of the spec. */
const GOOD: Record<string, Record<string, unknown>> = {
  AMAZONELASTIC: {
    hostname: 'search-x.us-east-1.es.amazonaws.com',
    port: 443,
    authenticationType: 'ACCESS_KEY',
    accessKey: 'AK',
    accessSecret: 'secret',
    overwriteRegion: true,
    regionName: 'us-east-1',
    scrollSize: 4000,
    encryptionValidationMode: 'NO_VALIDATION',
  },
  REDSHIFT: {
    connectionString: 'jdbc:redshift://x:5439/dev',
    authenticationType: 'MASTER',
    username: 'u',
    password: 'pw',
    fetchSize: 0,
  },
  S3: { accessKey: 'AK', accessSecret: 'sk', secure: true, externalBucketList: ['b1'], propertyList: props },
  ADLS: {
    mode: 'CLIENT_KEY',
    accountName: 'acct',
    clientId: 'cid',
    clientKeyRefreshUrl: 'https://login.example.com/token',
    clientKeyPassword: 'pw',
  },
  ADL: {
    accountName: 'acct',
    clientId: 'cid',
    clientKeyRefreshUrl: 'https://x/token',
    clientKeyPassword: 'pw',
  },
  AZURE_STORAGE: {
    accountKind: 'STORAGE_V2',
    accountName: 'acct',
    accessKey: 'key',
    enableSSL: true,
    rootPath: '/',
  },
  ELASTIC: {
    hostList: [{ hostname: 'es1', port: 9200 }],
    authenticationType: 'ANONYMOUS',
    readTimeoutMillis: 60000,
    sslEnabled: false,
  },
  HDFS: { hostname: 'namenode', port: 8020, enableImpersonation: false, rootPath: '/', propertyList: props },
  HIVE: { hostname: 'metastore', port: '9083', enableSasl: false },
  MAPRFS: { clusterName: 'my.cluster.com', secure: false },
  MSSQL: { ...jdbc, port: 1433, database: 'sales', showOnlyConnectiondatabase: true },
  MONGO: { hostList: [{ hostname: 'mongo', port: '27017' }], authenticationType: 'ANONYMOUS', useSsl: false },
  MYSQL: { ...jdbc, port: 3306, fetchSize: 200 },
  NAS: { path: '/data' },
  ORACLE: { ...jdbc, port: 1521, instance: 'ORCL' },
  POSTGRES: { ...jdbc, databaseName: 'sales' },
  HBASE: { zkQuorum: 'zk1,zk2', port: 2181, isSizeCalcEnabled: true },
  DB2: { ...jdbc, port: 50000, databaseName: 'SAMPLE' },
};

const usageError = (fn: () => unknown) => thrown(fn, UsageError);

describe('SOURCE_TYPES', () => {
  it('has every type of the spec, and ADL as an alias of ADLS', () => {
    expect(Object.keys(SOURCE_TYPES).sort()).toEqual(Object.keys(GOOD).sort());
    expect(SOURCE_TYPES.ADL).toMatchObject({ code: 'ADL', aliasOf: 'ADLS' });
    expect(SOURCE_TYPES.ADL!.fields).toEqual(SOURCE_TYPES.ADLS!.fields);
  });

  it('describes fields with their type, requiredness, secrecy and allowed values', () => {
    const fields = Object.fromEntries(SOURCE_TYPES.POSTGRES!.fields.map((f) => [f.name, f]));
    expect(fields.hostname).toMatchObject({ type: 'string', required: true, secret: false });
    expect(fields.port).toMatchObject({ type: 'number', required: true });
    expect(fields.password).toMatchObject({ type: 'string', required: false, secret: true });
    expect(fields.authenticationType).toMatchObject({ enum: ['ANONYMOUS', 'MASTER'], required: false });
    expect(fields.fetchSize?.description).toMatch(/0 lets the service decide/);
    expect(SOURCE_TYPES.S3!.fields.find((f) => f.name === 'externalBucketList')?.type).toBe('string[]');
    expect(SOURCE_TYPES.ELASTIC!.fields.find((f) => f.name === 'hostList')?.type).toBe('hostList');
    expect(SOURCE_TYPES.HDFS!.fields.find((f) => f.name === 'propertyList')?.type).toBe('propertyList');
  });

  it('merges both AZURE_STORAGE variants into one field list', () => {
    const fields = Object.fromEntries(SOURCE_TYPES.AZURE_STORAGE!.fields.map((f) => [f.name, f]));
    expect(fields.credentialsType?.enum).toEqual(['ACCESS_KEY', 'AZURE_ACTIVE_DIRECTORY']);
    expect(fields.accountName?.required).toBe(true);
    expect(fields.clientId?.required).toBe(false);
    expect(secretFieldNames('AZURE_STORAGE').sort()).toEqual(['accessKey', 'clientSecret']);
  });

  it('marks HBASE and DB2 deprecated', () => {
    expect(SOURCE_TYPES.HBASE!.deprecated).toMatch(/not supported for new sources/);
    expect(SOURCE_TYPES.DB2!.deprecated).toMatch(/not supported for new sources/);
    expect(SOURCE_TYPES.S3!.deprecated).toBeUndefined();
  });

  it('names the secret fields of a type', () => {
    expect(secretFieldNames('POSTGRES')).toEqual(['password']);
    expect(secretFieldNames('S3')).toEqual(['accessSecret']);
    expect(secretFieldNames('ADLS')).toEqual(['clientKeyPassword']);
    expect(secretFieldNames('NAS')).toEqual([]);
  });

  it('finds a type whatever the case of its code', () => {
    expect(findSourceType('postgres')?.code).toBe('POSTGRES');
    expect(findSourceType('nope')).toBeUndefined();
  });
});

describe('validateSourceConfig', () => {
  it.each(Object.entries(GOOD))('accepts a good %s config', (type, config) => {
    const forCreate = !SOURCE_TYPES[type]!.deprecated;
    expect(validateSourceConfig(type, config, { forCreate })).toEqual(config);
  });

  it('keeps fields the spec does not list', () => {
    const config = { path: '/data', defaultCtasFormat: 'ICEBERG', allowCreateDrop: true };
    expect(validateSourceConfig('NAS', config, { forCreate: true })).toEqual(config);
  });

  it('lists the valid types for an unknown type', () => {
    const error = usageError(() => validateSourceConfig('FOO', {}, { forCreate: true }));
    expect(error.message).toMatch(/unknown source type "FOO"/);
    expect(error.message).toMatch(/POSTGRES/);
    expect(error.message).toMatch(/AZURE_STORAGE/);
  });

  it('refuses a deprecated type on create, with the reason, but accepts it on update', () => {
    const error = usageError(() => validateSourceConfig('HBASE', GOOD.HBASE, { forCreate: true }));
    expect(error.message).toBe('HBASE is deprecated and not supported for new sources');
    expect(validateSourceConfig('HBASE', GOOD.HBASE, { forCreate: false })).toEqual(GOOD.HBASE);
    expect(() => validateSourceConfig('DB2', GOOD.DB2, { forCreate: true })).toThrow(/DB2 is deprecated/);
  });

  it('names every wrong field with what it expects', () => {
    const error = usageError(() =>
      validateSourceConfig(
        'POSTGRES',
        { hostname: 'h', port: 'x', authenticationType: 'FOO', fetchSize: '10', password: 5 },
        { forCreate: true },
      ),
    );
    expect(error.message).toBe('invalid config for source type POSTGRES');
    expect(error.details).toEqual(
      expect.arrayContaining([
        'config.authenticationType: must be one of ANONYMOUS, MASTER (got "FOO")',
        'config.port: must be a port number (1-65535) (got "x")',
        'config.fetchSize: must be a number (got "10")',
        'config.databaseName: is required',
        // A secret's value is never echoed.
        'config.password: must be a string',
      ]),
    );
    expect(error.details).toHaveLength(5);
    expect(error.hint).toEqual({ kind: 'source-types', type: 'POSTGRES' });
  });

  it('names allowed values of every enum', () => {
    const error = usageError(() =>
      validateSourceConfig(
        'AMAZONELASTIC',
        { hostname: 'h', authenticationType: 'NONE', encryptionValidationMode: 'SOME' },
        { forCreate: true },
      ),
    );
    expect(error.details).toEqual([
      'config.encryptionValidationMode: must be one of CERTIFICATE_AND_HOSTNAME_VALIDATION, ' +
        'CERTIFICATE_ONLY_VALIDATION, NO_VALIDATION (got "SOME")',
    ]);
  });

  it('accepts a port as a number or a string of digits, in range', () => {
    const base = { ...GOOD.MYSQL };
    expect(validateSourceConfig('MYSQL', { ...base, port: '3306' }, { forCreate: true }).port).toBe('3306');
    for (const port of [0, 70000, 1.5, '70000', '33a', true]) {
      expect(() => validateSourceConfig('MYSQL', { ...base, port }, { forCreate: true })).toThrow(UsageError);
    }
  });

  it('requires credentials only with MASTER authentication', () => {
    const anonymous = { hostname: 'h', port: 3306, authenticationType: 'ANONYMOUS' };
    expect(validateSourceConfig('MYSQL', anonymous, { forCreate: true })).toEqual(anonymous);
    const error = usageError(() =>
      validateSourceConfig('MYSQL', { ...anonymous, authenticationType: 'MASTER' }, { forCreate: true }),
    );
    expect(error.details).toEqual([
      'config.username: is required when authenticationType is MASTER',
      'config.password: is required when authenticationType is MASTER',
    ]);
  });

  it('lists conditional requirements together with other wrong fields', () => {
    const error = usageError(() =>
      validateSourceConfig(
        'MYSQL',
        { port: 3306, authenticationType: 'MASTER', username: 'u' },
        { forCreate: true },
      ),
    );
    expect(error.details).toEqual([
      'config.hostname: is required',
      'config.password: is required when authenticationType is MASTER',
    ]);
  });

  it('lets an update leave secrets out (the service keeps them) but not other required fields', () => {
    const noSecret = { hostname: 'h', port: 3306, authenticationType: 'MASTER', username: 'u' };
    expect(validateSourceConfig('MYSQL', noSecret, { forCreate: false })).toEqual(noSecret);
    expect(() =>
      validateSourceConfig('MYSQL', { ...noSecret, username: undefined }, { forCreate: false }),
    ).toThrow(/invalid config/);
    const kept = { ...noSecret, password: '$SERVICE_EXISTING_VALUE$' };
    expect(validateSourceConfig('MYSQL', kept, { forCreate: false })).toEqual(kept);
  });

  it('requires at least one host in a host list', () => {
    const error = usageError(() => validateSourceConfig('ELASTIC', { hostList: [] }, { forCreate: true }));
    expect(error.details).toEqual(['config.hostList: must list at least one host (got [])']);
    const bad = usageError(() =>
      validateSourceConfig('MONGO', { hostList: [{ hostname: 'h', port: 'p' }, 'x'] }, { forCreate: true }),
    );
    expect(bad.details).toEqual([
      'config.hostList[0].port: must be a port number (1-65535) (got "p")',
      'config.hostList[1]: must be an object {hostname, port} (got "x")',
    ]);
  });

  it('says so when the config is not an object', () => {
    for (const config of ['x', null, [], 3]) {
      const error = usageError(() => validateSourceConfig('NAS', config, { forCreate: true }));
      expect(error.details[0]).toMatch(/^config: must be an object/);
    }
  });

  describe('AZURE_STORAGE', () => {
    const oauth = {
      accountKind: 'STORAGE_V2',
      accountName: 'acct',
      credentialsType: 'AZURE_ACTIVE_DIRECTORY',
      clientId: 'cid',
      tokenEndpoint: 'https://login.microsoftonline.com/tenant/oauth2/token',
      clientSecret: 'cs',
      enableSSL: true,
      containers: ['c1', 'c2'],
    };

    it('accepts the shared access key variant, with or without credentialsType', () => {
      const shared = { accountName: 'acct', accessKey: 'k', containers: ['c'] };
      expect(validateSourceConfig('AZURE_STORAGE', shared, { forCreate: true })).toEqual(shared);
      const explicit = { ...shared, credentialsType: 'ACCESS_KEY' };
      expect(validateSourceConfig('AZURE_STORAGE', explicit, { forCreate: true })).toEqual(explicit);
    });

    it('accepts the OAuth 2.0 variant', () => {
      expect(validateSourceConfig('AZURE_STORAGE', oauth, { forCreate: true })).toEqual(oauth);
    });

    it('requires SSL and the OAuth fields with AZURE_ACTIVE_DIRECTORY', () => {
      const error = usageError(() =>
        validateSourceConfig(
          'AZURE_STORAGE',
          { ...oauth, enableSSL: false, tokenEndpoint: undefined },
          { forCreate: true },
        ),
      );
      expect(error.details).toEqual([
        'config.tokenEndpoint: is required',
        'config.enableSSL: must be true with OAuth 2.0 (AZURE_ACTIVE_DIRECTORY) (got false)',
      ]);
    });

    it('requires the shared key on create only', () => {
      const noKey = { accountName: 'acct' };
      expect(() => validateSourceConfig('AZURE_STORAGE', noKey, { forCreate: true })).toThrow(
        /invalid config/,
      );
      expect(validateSourceConfig('AZURE_STORAGE', noKey, { forCreate: false })).toEqual(noKey);
    });

    it('names the allowed credentials types', () => {
      const error = usageError(() =>
        validateSourceConfig(
          'AZURE_STORAGE',
          { accountName: 'a', credentialsType: 'X' },
          { forCreate: true },
        ),
      );
      expect(error.details).toEqual([
        'config.credentialsType: must be one of ACCESS_KEY, AZURE_ACTIVE_DIRECTORY (got "X")',
      ]);
    });
  });
});

describe('--set pairs on the fields of every source type', () => {
  it('coerce by the real field types and refuse the real secrets', () => {
    expect(applySetPairs(getSourceType('POSTGRES'), {}, ['port=5432', 'authenticationType=MASTER'])).toEqual({
      port: 5432,
      authenticationType: 'MASTER',
    });
    expect(applySetPairs(getSourceType('ELASTIC'), {}, ['readTimeoutMillis=90s'])).toEqual({
      readTimeoutMillis: 90_000,
    });
    for (const code of Object.keys(SOURCE_TYPES)) {
      for (const name of secretFieldNames(code)) {
        expect(() => applySetPairs(getSourceType(code), {}, [`${name}=x`])).toThrow(/is a secret/);
      }
    }
  });

  it('throw nothing but UsageError, whatever the input', () => {
    const types = Object.values(SOURCE_TYPES);
    const fieldNames = [...new Set(types.flatMap((t) => t.fields.map((f) => f.name)))];
    const key = fc.oneof(
      fc.constantFrom(...fieldNames),
      fc.constantFrom(...fieldNames).map((name) => `${name}.x`),
      fc.string(),
    );
    const pair = fc.oneof(
      fc.tuple(key, fc.oneof(fc.string(), fc.json())).map(([k, v]) => `${k}=${v}`),
      fc.string(),
    );
    fc.assert(
      fc.property(fc.constantFrom(...types), fc.array(pair, { maxLength: 4 }), (info, pairs) => {
        try {
          applySetPairs(info, {}, pairs);
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError);
        }
      }),
      { numRuns: 200 },
    );
  });
});
