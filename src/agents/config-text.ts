// Reading and editing one entry of a host's configuration file in its own format, changing nothing else: JSON
// (with comments, as VS Code and others allow) through jsonc-parser's edits, which keep the file's layout and
// comments; TOML by adding or cutting dlake's own table as text, checked by parsing with smol-toml; YAML through
// the yaml library's document model, which keeps comments. Every edit is checked: the file parsed after it must
// hold exactly the entry meant and everything else it held before, or the edit is refused.
import { isDeepStrictEqual } from 'node:util';
import { firstLine } from '../util/first-line.js';
import type { Format } from './hosts.js';

/** The file's content cannot be read or edited safely: the message says why. */
export class ConfigTextError extends Error {}

/** The value at `key` (undefined when absent). */
export async function readEntry(text: string, format: Format, key: string[]): Promise<unknown> {
  return valueAt(await parseAll(text, format), key);
}

/** `text` with `value` at `key` (added, or replacing what is there), everything else kept. */
export async function setEntry(text: string, format: Format, key: string[], value: unknown): Promise<string> {
  const edited =
    format === 'json'
      ? await jsonSet(text, key, value)
      : format === 'yaml'
        ? await yamlSet(text, key, value)
        : await tomlSet(text, key, value);
  await checkEdit(text, edited, format, key, value);
  return edited;
}

/**
 * `text` without the entry at `key`; a parent object left empty goes too when `dropEmptyParent` (dlake created
 * it). Everything else is kept.
 */
export async function removeEntry(
  text: string,
  format: Format,
  key: string[],
  dropEmptyParent: boolean,
): Promise<string> {
  let edited =
    format === 'json'
      ? await jsonSet(text, key, undefined)
      : format === 'yaml'
        ? await yamlSet(text, key, undefined)
        : await tomlRemove(text, key);
  await checkEdit(text, edited, format, key, undefined);
  const parent = key.slice(0, -1);
  const left = valueAt(await parseAll(edited, format), parent);
  if (dropEmptyParent && parent.length > 0 && isEmptyObject(left)) {
    edited =
      format === 'json'
        ? await jsonSet(edited, parent, undefined)
        : format === 'yaml'
          ? await yamlSet(edited, parent, undefined)
          : await tomlRemove(edited, parent);
  }
  return edited;
}

/** Whether the whole file holds nothing but empty objects (what is left after dlake's entry went). */
export async function isEmptyConfig(text: string, format: Format): Promise<boolean> {
  const all = await parseAll(text, format);
  const empty = (v: unknown): boolean => isEmptyObject(v) || (isObject(v) && Object.values(v).every(empty));
  return all === undefined || empty(all);
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const isEmptyObject = (v: unknown) => isObject(v) && Object.keys(v).length === 0;

function valueAt(root: unknown, key: string[]): unknown {
  let v = root;
  for (const k of key) {
    if (!isObject(v) || !Object.hasOwn(v, k)) return undefined;
    v = v[k];
  }
  return v;
}

/** The file's whole content as data; a file that does not parse is a ConfigTextError. */
async function parseAll(text: string, format: Format): Promise<unknown> {
  if (text.trim() === '') return {};
  if (format === 'json') {
    const { parse, printParseErrorCode } = await import('jsonc-parser');
    const errors: import('jsonc-parser').ParseError[] = [];
    const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
    if (errors.length > 0) {
      const e = errors[0]!;
      throw new ConfigTextError(
        `not JSON (${printParseErrorCode(e.error)} at line ${lineOf(text, e.offset)})`,
      );
    }
    if (!isObject(value)) throw new ConfigTextError('not a JSON object');
    return value;
  }
  if (format === 'toml') {
    const { parse } = await import('smol-toml');
    try {
      // Plain objects (smol-toml's have no prototype), so that they compare with what dlake writes.
      return JSON.parse(JSON.stringify(parse(text)));
    } catch (e) {
      throw new ConfigTextError(`not TOML (${firstLine(e)})`);
    }
  }
  const { parseDocument } = await import('yaml');
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new ConfigTextError(`not YAML (${firstLine(doc.errors[0])})`);
  const value = doc.toJS();
  if (value !== null && value !== undefined && !isObject(value))
    throw new ConfigTextError('not a YAML mapping');
  return value ?? {};
}

const lineOf = (text: string, offset: number) => text.slice(0, offset).split('\n').length;

/** The edit did what was meant and nothing else: else a ConfigTextError, and the file is left as it is. */
async function checkEdit(before: string, after: string, format: Format, key: string[], value: unknown) {
  const [was, is] = [await parseAll(before, format), await parseAll(after, format)];
  if (!isDeepStrictEqual(valueAt(is, key), value))
    throw new ConfigTextError('the edit would not hold the entry meant');
  if (!isDeepStrictEqual(without(was, key), without(is, key)))
    throw new ConfigTextError('the edit would change more than the entry');
}

/** `root` without the entry at `key`, and without a parent that only it made non-empty. */
function without(root: unknown, key: string[]): unknown {
  const copy = structuredClone(root) as Record<string, unknown>;
  let v: Record<string, unknown> = copy;
  for (const k of key.slice(0, -1)) {
    if (!isObject(v[k])) return copy;
    v = v[k] as Record<string, unknown>;
  }
  delete v[key.at(-1)!];
  const parent = key.slice(0, -1);
  if (parent.length > 0 && isEmptyObject(valueAt(copy, parent))) {
    let p: Record<string, unknown> = copy;
    for (const k of parent.slice(0, -1)) p = p[k] as Record<string, unknown>;
    delete p[parent.at(-1)!];
  }
  return copy;
}

async function jsonSet(text: string, key: string[], value: unknown): Promise<string> {
  const { modify, applyEdits } = await import('jsonc-parser');
  const base = text.trim() === '' ? '{}\n' : text;
  const eol = base.includes('\r\n') ? '\r\n' : '\n';
  // The file's own indentation: a tab, or the spaces of its first indented line (2 if none).
  const indent = /\n(\t| +)\S/.exec(base)?.[1] ?? '  ';
  const edits = modify(base, key, value, {
    formattingOptions: { insertSpaces: indent !== '\t', tabSize: indent === '\t' ? 1 : indent.length, eol },
  });
  return applyEdits(base, edits);
}

/** YAML output options that give the file back byte for byte when nothing changed (its own list indentation). */
async function yamlSet(text: string, key: string[], value: unknown): Promise<string> {
  const { parseDocument } = await import('yaml');
  const styles = [
    { indentSeq: true, lineWidth: 0 },
    { indentSeq: false, lineWidth: 0 },
  ];
  const style = styles.find((s) => parseDocument(text).toString(s) === text) ?? styles[0]!;
  const doc = parseDocument(text.trim() === '' ? '{}\n' : text);
  if (value === undefined) doc.deleteIn(key);
  else doc.setIn(key, doc.createNode(value));
  return doc.toString(style);
}

/**
 * The header line of TOML table `key` (`[mcp_servers.dlake]`, its parts bare or quoted), or with `below` of it
 * or any table under it (`[mcp_servers.dlake.env]`).
 */
function tomlHeader(key: string[], below = false): RegExp {
  const part = (k: string) => `(?:${k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}|"${k}"|'${k}')`;
  const body = key.map(part).join('[ \\t]*\\.[ \\t]*') + (below ? '(?:[ \\t]*\\.[^\\]\\n]*)?' : '');
  return new RegExp(`^[ \\t]*\\[[ \\t]*${body}[ \\t]*\\][ \\t]*(?:#.*)?\\r?$`, 'm');
}

/** The span of table `key` and its sub-tables: from its header to the next table that is not under it. */
function tomlSpan(text: string, key: string[]): { start: number; end: number } | undefined {
  const m = tomlHeader(key).exec(text);
  if (!m) return undefined;
  const under = tomlHeader(key, true);
  const headers = /^[ \t]*\[.*$/gm;
  headers.lastIndex = m.index + m[0].length;
  for (let h = headers.exec(text); h; h = headers.exec(text)) {
    if (!under.test(h[0])) return { start: m.index, end: h.index };
  }
  return { start: m.index, end: text.length };
}

async function tomlRemove(text: string, key: string[]): Promise<string> {
  const span = tomlSpan(text, key);
  if (!span)
    throw new ConfigTextError(`its ${key.join('.')} is not a table of its own that dlake can cut out`);
  // The blank line dlake put before the table goes with it.
  const before = text.slice(0, span.start).replace(/(\r?\n)\r?\n$/, '$1');
  return before + text.slice(span.end);
}

async function tomlSet(text: string, key: string[], value: unknown): Promise<string> {
  const { stringify } = await import('smol-toml');
  const base = tomlSpan(text, key) ? await tomlRemove(text, key) : text;
  let nested: unknown = value;
  for (const k of [...key].reverse()) nested = { [k]: nested };
  const eol = base.includes('\r\n') ? '\r\n' : '\n';
  const table = stringify(nested as Record<string, unknown>)
    .trim()
    .replaceAll('\n', eol);
  // A blank line between the file's last line and dlake's table.
  const sep = base === '' ? '' : base.endsWith('\n') ? eol : eol + eol;
  return `${base}${sep}${table}${eol}`;
}
