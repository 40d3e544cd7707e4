// The source type codes alone, without their schemas: the command tree offers them to shell completion
// without loading zod and every schema (source-types.ts checks that the two lists agree).
export const SOURCE_TYPE_CODES = [
  'AMAZONELASTIC',
  'REDSHIFT',
  'S3',
  'ADLS',
  'AZURE_STORAGE',
  'ELASTIC',
  'HDFS',
  'HIVE',
  'MAPRFS',
  'MSSQL',
  'MONGO',
  'MYSQL',
  'NAS',
  'ORACLE',
  'POSTGRES',
  'HBASE',
  'DB2',
] as const;
