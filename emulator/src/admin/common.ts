// Helpers the administration areas share: request bodies, stable ids, the user/role filter language.

import { createHash } from 'node:crypto';
import { type ApiError, badRequest, type EmuRequest, jsonBody } from '../http.js';

export type Json = Record<string, unknown>;

/** A JSON object body; anything else (an empty body, an array, a number) is Jackson's `Invalid value.`. */
export function objectBody(req: EmuRequest): Json {
  if (!req.body.trim()) throw badRequest('Invalid value.');
  const body = jsonBody<unknown>(req);
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('Invalid value.');
  return body as Json;
}

/** Jackson's mapping error for a field of the wrong type. */
export const invalidAt = (field: string): ApiError => badRequest(`Invalid value found at: ${field}`);

export function optionalString(body: Json, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalidAt(field);
  return v;
}

export const iso = (ms: number): string => new Date(ms).toISOString();

/** A UUID-shaped id derived from a seed, so seeded data is the same in every run. */
export function stableUuid(seed: string): string {
  const h = createHash('sha1').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The `filter` expressions of `GET /user` and `GET /role` (docs/api-facts.md §7.2, §8): `field=='v'`,
 * `startsWith(field,'v')`, `contains(field,'v')`, joined by `&&` and `||` (no parentheses; `&&` binds
 * tighter). Anything else is a 400.
 */
export function compileFilter(expr: string | null, fields: readonly string[]): (o: Json) => boolean {
  if (!expr?.trim()) return () => true;
  const term = (t: string): ((o: Json) => boolean) => {
    const eq = /^\s*(\w+)\s*==\s*(['"])(.*)\2\s*$/.exec(t);
    const fn = /^\s*(startsWith|contains)\s*\(\s*(\w+)\s*,\s*(['"])(.*)\3\s*\)\s*$/.exec(t);
    const field = eq?.[1] ?? fn?.[2];
    if (!field || !fields.includes(field)) throw badRequest(`Invalid filter expression: ${expr}`);
    const value = eq ? eq[3]! : fn![4]!;
    return (o) => {
      const v = o[field];
      if (typeof v !== 'string') return false;
      if (eq) return v === value;
      return fn![1] === 'startsWith' ? v.startsWith(value) : v.includes(value);
    };
  };
  const ors = expr.split('||').map((or) => or.split('&&').map(term));
  return (o) => ors.some((ands) => ands.every((t) => t(o)));
}

/**
 * A list answer, `{data, totalResults}`, paged as the hosted edition documents its users and roles
 * (docs/api-facts.md §13.4): `orderBy` (`name`, or `name desc`), `maxResults` 1..1000 (a 400 outside), and an
 * opaque `pageToken` answered by `nextPageToken` while more remain. Without `maxResults` everything comes at once.
 */
export function listPage(req: EmuRequest, data: Json[]): Json {
  const order = req.query.get('orderBy')?.trim();
  if (order) {
    const [field, dir] = order.split(/\s+/);
    const sign = dir?.toLowerCase() === 'desc' ? -1 : 1;
    data = [...data].sort((a, b) => sign * String(a[field!] ?? '').localeCompare(String(b[field!] ?? '')));
  }
  const max = req.query.get('maxResults');
  if (max === null) return { data, totalResults: data.length };
  const n = /^\d+$/.test(max) ? Number(max) : Number.NaN;
  if (!(n >= 1 && n <= 1000)) throw badRequest(`maxResults must be between 1 and 1000, got [${max}]`);
  const token = req.query.get('pageToken');
  const from = token ? Number(Buffer.from(token, 'base64url').toString()) : 0;
  if (!Number.isSafeInteger(from) || from < 0) throw badRequest('Invalid page token.');
  const page = data.slice(from, from + n);
  const next = from + n < data.length ? Buffer.from(String(from + n)).toString('base64url') : undefined;
  return { data: page, totalResults: data.length, ...(next ? { nextPageToken: next } : {}) };
}
