// The SQL shell's history filter (src/shell/history-filter.ts): common statements that carry a secret, in the
// spellings people and tools write them (case, separators, camelCase, quotes, comments and line breaks between
// the words), are never recorded; ordinary statements are.
import { describe, expect, it } from 'vitest';
import { mayHoldSecret } from '../../src/shell/history-filter.js';
import { sqlTokens } from '../../src/sql/split.js';

const SECRET_BEARING = [
  // Users and their passwords.
  "CREATE USER eve PASSWORD 'hunter2'",
  "CREATE USER eve SET PASSWORD 'hunter2'",
  "ALTER USER eve SET PASSWORD 'hunter2'",
  "alter user eve set password = 'hunter2'",
  "ALTER USER eve IDENTIFIED BY 'hunter2'",
  "CREATE USER eve IDENTIFIED BY 'hunter2'",
  "ALTER USER eve IDENTIFIED/**/BY 'hunter2'",
  "ALTER USER eve IDENTIFIED/* why not */BY 'hunter2'",
  "ALTER USER eve IDENTIFIED -- by what?\n BY 'hunter2'",
  "ALTER USER eve identified\n\t  by 'hunter2'",
  'ALTER USER eve "IDENTIFIED" BY \'hunter2\'',
  "ALTER ROLE admin WITH PASSWD 'hunter2'",
  "ALTER USER eve PWD 'hunter2'",
  "CREATE USER eve WITH PASSPHRASE 'correct horse'",
  // Sources and their secret properties.
  "CREATE SOURCE s3 TYPE S3 WITH (accessKey = 'AKIA', secretAccessKey = 'wJalr')",
  'CREATE SOURCE s3 WITH ("aws_secret_key" = \'wJalr\')',
  "CREATE SOURCE s3 WITH (AWS_SECRET_ACCESS_KEY = 'wJalr')",
  "ALTER SOURCE s3 SET 'fs.s3a.secret.key' = 'wJalr'",
  "ALTER SOURCE s3 SET 'fs.s3a.access.key' = 'AKIA'",
  "ALTER SOURCE s3 SET `secret-key` = 'wJalr'",
  "ALTER SOURCE lake SET sas_token = 'sv=2022&sig=abc'",
  'ALTER SOURCE lake SET "sasToken" = \'abc\'',
  "ALTER SOURCE lake SET SAS /* azure */ = 'abc'",
  "ALTER SOURCE lake SET 'fs.azure.account.key.acct.dfs.core.windows.net' = 'abc'",
  "ALTER SOURCE lake SET accountKey = 'abc'",
  "ALTER SOURCE lake SET account_key = 'abc'",
  'ALTER SOURCE lake SET "shared-key" = \'abc\'',
  "ALTER SOURCE pg SET client_secret = 'abc'",
  "ALTER SOURCE pg SET clientSecret = 'abc'",
  'ALTER SOURCE pg SET "client-secret" = \'abc\'',
  "ALTER SOURCE gcs SET private_key = '-----BEGIN'",
  "ALTER SOURCE gcs SET privateKey = '-----BEGIN'",
  "ALTER SOURCE gcs SET 'private.key' = '-----BEGIN'",
  "ALTER SOURCE es SET apiKey = 'abc'",
  "ALTER SOURCE es SET API_KEY = 'abc'",
  'ALTER SOURCE es SET "x-api-key" = \'abc\'',
  "ALTER SOURCE es SET API KEY 'abc'",
  "ALTER SOURCE es SET ACCESS /* the */ KEY 'abc'",
  'ALTER SOURCE snow SET credentials = \'{"type": "service_account"}\'',
  'ALTER SOURCE snow SET config = \'{"privateKey": "abc"}\'',
  'ALTER SOURCE kafka SET \'sasl.jaas.config\' = \'username="u" password="p"\'',
  // Tokens in many spellings.
  "SELECT * FROM t WHERE token = 'abc'",
  "SELECT * FROM t WHERE access_token = 'abc'",
  "SELECT * FROM t WHERE accessToken = 'abc'",
  'SELECT * FROM t WHERE "refresh-token" = \'abc\'',
  "SELECT * FROM t WHERE bearer = 'abc'",
  "SELECT * FROM t WHERE auth_token = 'abc'",
  "SELECT * FROM t WHERE pat = 'dremio-pat'",
  "SELECT * FROM t WHERE jwt = 'eyJ'",
  "SELECT * FROM t WHERE authorization = 'Basic abc'",
  "SELECT * FROM t WHERE client_secret = 'x'",
  "CREATE SECRET my_secret (TYPE S3, KEY_ID 'AKIA', SECRET 'wJalr')",
  // Secrets inside strings: a connection string, a URL with a password, a SAS URL.
  "SELECT * FROM TABLE(load('Server=db;User Id=u;Password=p;'))",
  "SELECT * FROM TABLE(load('postgres://bob:hunter2@db.example.com/sales'))",
  "SELECT * FROM TABLE(load('https://acct.blob.core.windows.net/c/f.csv?sv=2022-11-02&sig=AbC%2B'))",
];

const ORDINARY = [
  'SELECT name FROM users',
  'SELECT * FROM big',
  'SELECT id, name FROM big WHERE id < 3 ORDER BY id',
  'CREATE TABLE t (id INT PRIMARY KEY, monkey VARCHAR)',
  'SELECT * FROM sys.jobs',
  "SELECT 'keynote' AS talk, identified FROM t",
  'SELECT region, SUM(units) AS units FROM Samples.sales GROUP BY 1',
  "SELECT * FROM TABLE(load('https://example.com/data.csv?page=2'))",
  'SELECT "by" FROM t',
];

describe('the history filter', () => {
  it.each(SECRET_BEARING)('drops %j', (statement) => {
    expect(mayHoldSecret(statement)).toBe(true);
  });

  it.each(ORDINARY)('keeps %j', (statement) => {
    expect(mayHoldSecret(statement)).toBe(false);
  });

  it('reads statements through the SQL lexer: comments dropped, quoted text one token', () => {
    expect(
      sqlTokens('IDENTIFIED/**/BY -- x\n \'it\'\'s\' "a ""b"""').map(({ kind, text }) => ({ kind, text })),
    ).toEqual([
      { kind: 'word', text: 'IDENTIFIED' },
      { kind: 'word', text: 'BY' },
      { kind: 'string', text: "it's" },
      { kind: 'identifier', text: 'a "b"' },
    ]);
  });
});
