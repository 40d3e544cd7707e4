// Which statements the SQL shell never records in its history: those that may carry a secret. The statement is
// read as the service's parser reads it (src/sql/split.ts): comments are dropped before anything is matched, so
// `IDENTIFIED/**/BY 'x'` is `IDENTIFIED BY 'x'`, and a quoted name is one token. Then every name (bare, quoted,
// or a property name inside a string: `'fs.azure.account.key.acct'`) is compared in a normal form that ignores
// case and separators, so `secretAccessKey`, `aws_secret_key`, `"sas-token"` and `SAS_TOKEN` read alike.
// Dropping a harmless statement costs a history entry; keeping a secret leaks it (docs/guide.md "The SQL shell").
import type { Token } from '../sql/lexer.js';
import { sqlTokens } from '../sql/split.js';
import { isSecretKey } from '../util/redact.js';

/**
 * What a secret-bearing name holds once lower-cased and stripped of separators (`client_secret` →
 * `clientsecret`). Broad on purpose: `secretary` or `tokenize` costs only a history entry.
 */
const SECRET_PARTS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'credential',
  'apikey',
  'accesskey',
  'privatekey',
  'accountkey',
  'sharedkey',
  'signingkey',
  'clientkey',
  'masterkey',
  'authkey',
  'encryptionkey',
  'sessionkey',
  'storagekey',
  'authorization',
  'bearer',
];

/** Two words in a row that introduce a secret: `IDENTIFIED BY 'x'`, `ACCESS KEY 'x'`, `API KEY`. */
const SECRET_PAIRS = new Set(['identifiedby', ...SECRET_PARTS.filter((p) => p.endsWith('key'))]);

/** Whole names (after normalising) that are secrets, though too short to look for inside others. */
const SECRET_NAMES = new Set(['pwd', 'pat', 'jwt', 'sas', 'sig', 'psk']);

/** A name in its normal form: lower case, letters and digits only (`secretAccessKey`, `SECRET-ACCESS_KEY`). */
const normal = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

function isSecretName(name: string): boolean {
  const n = normal(name);
  if (!n) return false;
  return isSecretKey(n) || SECRET_NAMES.has(n) || SECRET_PARTS.some((part) => n.includes(part));
}

/** A URL's userinfo with a password, read from just after `://` (sticky: it never scans back). */
const USERINFO = /[^/\s:@]*:[^/\s@]+@/y;

/**
 * In a string literal: a URL's `user:password@`, or a query string's SAS signature (`?sv=…&sig=…`). Linear in
 * the text: each `://` is read forward to the end of its authority, as a pasted megabyte must not cost more.
 */
function secretInText(text: string): boolean {
  if (/[?&]sig=/i.test(text)) return true;
  for (let at = text.indexOf('://'); at >= 0; at = text.indexOf('://', at + 3)) {
    USERINFO.lastIndex = at + 3;
    if (USERINFO.test(text)) return true;
  }
  return false;
}

/** The names a token holds: itself, or for a string literal each run of name characters in it. */
function namesOf(token: Token): string[] {
  if (token.kind === 'symbol') return [];
  if (token.kind !== 'string') return [token.text];
  return token.text.match(/[A-Za-z0-9_.-]+/g) ?? [];
}

/**
 * Whether a statement may carry a secret: a name anywhere in it (a keyword, a column, a property, a quoted
 * key, a key named inside a string) that names a secret, two words in a row that introduce one (`IDENTIFIED
 * BY`), or a string holding a URL's password or a SAS signature.
 */
export function mayHoldSecret(text: string): boolean {
  const tokens = sqlTokens(text);
  let previous = '';
  for (const token of tokens) {
    if (token.kind === 'string' && secretInText(token.text)) return true;
    for (const name of namesOf(token)) {
      if (isSecretName(name)) return true;
      // Each part of a dotted property name too (`fs.s3a.secret.key` holds `secret`; `account.key` a pair).
      const parts = name.split(/[.]/).filter(Boolean);
      for (let k = 0; k < parts.length; k++) {
        if (SECRET_NAMES.has(normal(parts[k]!))) return true;
        if (k > 0 && SECRET_PAIRS.has(normal(parts[k - 1]!) + normal(parts[k]!))) return true;
      }
    }
    const word = token.kind === 'word' || token.kind === 'identifier' ? normal(token.text) : '';
    if (word && SECRET_PAIRS.has(previous + word)) return true;
    previous = word;
  }
  return false;
}
