// `--set key=value` pairs for a config with a known field list (a source type's): each value is coerced by
// its field's type, so `--set port=5432 --set ssl=yes` sends a number and a boolean. The result is not
// validated here: the command passes it to the config's validation, which names every wrong field at once.
// The caller passes the fields in (src/api/source-types.ts reads them off the schemas): this module is of the
// bottom layer and imports nothing above it (docs/architecture.md, "Layers and the direction of imports").
//
// Accepted forms:
//   number        5432, -1, 2.5 (a field whose name ends in `Millis` also takes a duration: 90s, 5m)
//   boolean       true/false, yes/no, 1/0 (any case)
//   string[]      a,b,c  or a JSON array  ["a","b"]
//   hostList      host1:9200,host2:9201,[::1]:9200  or JSON  [{"hostname":"h","port":9200}]
//   propertyList  propertyList.NAME=VALUE adds or replaces one {name, value}; propertyList=[…] (JSON) replaces all
//   string        taken as is
// Secret fields are refused: docs/cli-contract.md "Secrets" keeps secrets off the command line (they show in
// `ps` and shell history).
import { UsageError } from '../errors.js';
import { parseDuration } from './units.js';

export type ConfigFieldType = 'string' | 'number' | 'boolean' | 'string[]' | 'hostList' | 'propertyList';

/** What the pairs need to know of a config field. */
export interface ConfigField {
  name: string;
  type: ConfigFieldType;
  secret?: boolean;
  enum?: readonly string[];
}

/** The fields of one kind of config, and the name messages give it (a source type's code). */
export interface ConfigFields {
  code: string;
  fields: readonly ConfigField[];
}

interface SetPair {
  key: string;
  value: string;
}

/** `key=value`, split at the first `=` (values may hold `=`, as in `propertyList.a=b=c`). */
export function parseSetPair(text: string): SetPair {
  const eq = text.indexOf('=');
  if (eq === -1) {
    throw new UsageError(`--set "${text}" has no "="`, {
      hint: 'write --set key=value, e.g. --set port=5432',
    });
  }
  const key = text.slice(0, eq).trim();
  if (key === '')
    throw new UsageError(`--set "${text}" has no key before "="`, { hint: 'write --set key=value' });
  return { key, value: text.slice(eq + 1) };
}

/** A copy of `base` with each `key=value` pair applied, in order; `base` is left untouched. */
export function applySetPairs(
  info: ConfigFields,
  base: Record<string, unknown>,
  pairs: readonly string[],
): Record<string, unknown> {
  const config: Record<string, unknown> = { ...base };
  for (const text of pairs) applyOne(info, config, parseSetPair(text));
  return config;
}

function applyOne(info: ConfigFields, config: Record<string, unknown>, { key, value }: SetPair): void {
  const target = findField(info, key);
  if (target.field.secret) {
    throw new UsageError(`--set ${key}: ${key} is a secret and is never taken from the command line`, {
      hint: `put "${key}" in a JSON file given with --config-file, or leave it out to keep the stored value`,
    });
  }
  if (target.property !== undefined) {
    config[target.field.name] = upsertProperty(config[target.field.name], target.property, value);
  } else {
    config[target.field.name] = coerce(target.field, value);
  }
}

interface Target {
  field: ConfigField;
  /** For `propertyList.NAME`: the NAME. */
  property?: string;
}

function findField(info: ConfigFields, key: string): Target {
  const exact = info.fields.find((f) => f.name === key);
  if (exact) return { field: exact };
  const dot = key.indexOf('.');
  if (dot > 0) {
    const list = info.fields.find((f) => f.name === key.slice(0, dot) && f.type === 'propertyList');
    if (list && dot < key.length - 1) return { field: list, property: key.slice(dot + 1) };
  }
  throw unknownField(info, key);
}

function unknownField(info: ConfigFields, key: string): UsageError {
  const near = info.fields.find((f) => f.name.toLowerCase() === key.toLowerCase());
  return new UsageError(`--set ${key}: ${info.code} has no config field "${key}"`, {
    details: [`fields of ${info.code}:`, ...info.fields.map((f) => `  ${f.name} (${describeType(f)})`)],
    ...(near ? { hint: `did you mean ${near.name}?` } : {}),
  });
}

function describeType(f: ConfigField): string {
  if (f.enum) return f.enum.join(' | ');
  if (f.type === 'propertyList') return 'propertyList; set one with propertyList.NAME=VALUE';
  return f.type;
}

function coerce(field: ConfigField, value: string): unknown {
  switch (field.type) {
    case 'number':
      return toNumber(field, value);
    case 'boolean':
      return toBoolean(field, value);
    case 'string[]':
      return toStringList(field, value);
    case 'hostList':
      return toHostList(field, value);
    case 'propertyList':
      return toPropertyList(field, value);
    case 'string':
      return value;
  }
}

function invalid(field: ConfigField, value: string, expected: string): UsageError {
  return new UsageError(`--set ${field.name}: "${value}" is not ${expected}`);
}

const NUMBER_RE = /^-?\d+(\.\d+)?$/;

function toNumber(field: ConfigField, value: string): number {
  const text = value.trim();
  if (NUMBER_RE.test(text)) return Number(text);
  // Fields counted in milliseconds take human durations too (docs/cli-contract.md "Human units").
  if (field.name.endsWith('Millis')) return parseDuration(text, { defaultUnit: 'ms' });
  throw invalid(field, value, 'a number');
}

const TRUE = new Set(['true', 'yes', '1']);
const FALSE = new Set(['false', 'no', '0']);

function toBoolean(field: ConfigField, value: string): boolean {
  const text = value.trim().toLowerCase();
  if (TRUE.has(text)) return true;
  if (FALSE.has(text)) return false;
  throw invalid(field, value, 'a boolean (true/false, yes/no, 1/0)');
}

function looksLikeJson(value: string): boolean {
  return /^\s*[[{]/.test(value);
}

function parseJson(field: ConfigField, value: string): unknown {
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new UsageError(`--set ${field.name}: invalid JSON (${(error as Error).message})`, { cause: error });
  }
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function toStringList(field: ConfigField, value: string): unknown {
  if (!looksLikeJson(value)) return splitList(value);
  const parsed = parseJson(field, value);
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) {
    throw invalid(field, value, 'a list of strings (a,b or ["a","b"])');
  }
  return parsed;
}

/** JSON is passed through as given (an object becomes a one-host list); validation checks its entries. */
function toHostList(field: ConfigField, value: string): unknown {
  if (looksLikeJson(value)) {
    const parsed = parseJson(field, value);
    return Array.isArray(parsed) ? parsed : [parsed];
  }
  return splitList(value).map((item) => toHost(field, item));
}

const HOST_RE = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/;

/** `host:port` or `[ipv6]:port`. */
function toHost(field: ConfigField, item: string): { hostname: string; port: number } {
  const match = HOST_RE.exec(item);
  if (!match) throw invalid(field, item, 'host:port (e.g. es1.example.com:9200)');
  return { hostname: (match[1] ?? match[2])!, port: Number(match[3]) };
}

function toPropertyList(field: ConfigField, value: string): unknown {
  if (!looksLikeJson(value)) {
    throw new UsageError(`--set ${field.name}: expected a JSON array of {name, value}`, {
      hint: `set one property with --set ${field.name}.NAME=VALUE`,
    });
  }
  const parsed = parseJson(field, value);
  return Array.isArray(parsed) ? parsed : [parsed];
}

/** The list with NAME's entry replaced in place, or appended; other entries are kept as they were. */
function upsertProperty(current: unknown, name: string, value: string): unknown[] {
  const list = Array.isArray(current) ? [...current] : [];
  const index = list.findIndex((entry) => isRecord(entry) && entry.name === name);
  if (index === -1) list.push({ name, value });
  else list[index] = { ...(list[index] as Record<string, unknown>), value };
  return list;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
