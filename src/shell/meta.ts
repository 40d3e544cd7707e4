// The SQL shell's backslash commands as psql users know them: their help lines, and the parsing of their
// arguments (pure, so that a bad argument is one `error:` line and the shell goes on). The wording of the
// settings' messages is psql's ("Expanded display is on.", "Timing is off.").
import { UsageError } from '../errors.js';
import { wrapWords } from '../output/width.js';

/** The help of each command, in the order `\?` lists them. */
export const COMMANDS: Record<string, string> = {
  '\\d':
    '\\d [NAME]           describe a table or view: its columns and types (Samples.sales, Samples/sales or sys.jobs); alone or with a pattern, list tables and views',
  '\\dt': '\\dt [PATTERN]       list tables (Samples.*; * and ? match any text and any one character)',
  '\\dv': '\\dv [PATTERN]       list views, likewise',
  '\\i': '\\i FILE             run the statements of FILE in order; the first failure stops it',
  '\\e': '\\e                  edit the query being typed, or else the last one, in $EDITOR; run it on save',
  '\\watch':
    '\\watch [SECONDS]    run the query being typed, or else the last one, every SECONDS (2) until Ctrl-C',
  '\\o':
    '\\o FILE             export the next result to FILE (csv, json, ndjson or parquet from the name, .gz to gzip text; checked at once; --transport flight|rest|auto; --no-clobber keeps a FILE that exists); \\o alone: no export',
  '\\timing': '\\timing [on|off]    show how long each statement takes',
  '\\x':
    '\\x [on|off|auto]    expanded display: one field a line (auto: when a table is wider than the terminal)',
  '\\set':
    '\\set readonly [on|off]  run only statements that read, as dlake mcp does (dlake sql --read-only starts with it on)',
  '\\q': '\\q                  leave (Ctrl-D too)',
  '\\?': '\\?                  this help',
};

/** The width of the commands' column in `\\?`. */
const TERM_WIDTH = 20;

/** `\\?`: the commands' help, each description wrapped under its column on a terminal of `width` columns. */
export function helpLines(width: number | undefined): string[] {
  return Object.values(COMMANDS).flatMap((line) => {
    if (!width) return [line];
    const [first, ...rest] = wrapWords(line.slice(TERM_WIDTH), Math.max(20, width - TERM_WIDTH));
    return [line.slice(0, TERM_WIDTH) + first, ...rest.map((l) => ' '.repeat(TERM_WIDTH) + l)];
  });
}

interface MetaCommand {
  /** The command word, `\dt`. */
  name: string;
  /** Everything after it, trimmed. */
  arg: string;
}

/** `\dt  Sales.*` → `{name: '\dt', arg: 'Sales.*'}`. */
export function parseMeta(line: string): MetaCommand {
  const text = line.trim();
  const name = /^\\[^\s]*/.exec(text)?.[0] ?? text;
  return { name, arg: text.slice(name.length).trim() };
}

/** `\timing [on|off]`: a value given sets it, none toggles it (as psql). */
export function parseSwitch(command: string, arg: string, current: boolean): boolean {
  const v = arg.toLowerCase();
  if (v === '') return !current;
  if (v === 'on' || v === 'true' || v === '1') return true;
  if (v === 'off' || v === 'false' || v === '0') return false;
  throw new UsageError(`${command} takes on or off, not "${arg}"`);
}

/** `\set readonly [on|off]`: the one setting `\set` knows; none toggles it. */
export function parseSet(arg: string, current: boolean): boolean {
  const [name = '', ...value] = arg.split(/\s+/).filter(Boolean);
  if (name.toLowerCase() !== 'readonly') {
    throw new UsageError(name ? `\\set knows readonly only, not "${name}"` : '\\set needs a setting', {
      hint: 'e.g. \\set readonly on',
    });
  }
  return parseSwitch('\\set readonly', value.join(' '), current);
}

export type Expanded = 'on' | 'off' | 'auto';

/** `\x [on|off|auto]`: none toggles between on and off (auto toggles to off, as psql does). */
export function parseExpanded(arg: string, current: Expanded): Expanded {
  const v = arg.toLowerCase();
  if (v === 'auto') return 'auto';
  if (v === '') return current === 'on' ? 'off' : current === 'off' ? 'on' : 'off';
  return parseSwitch('\\x', arg, current === 'on') ? 'on' : 'off';
}

export function expandedMessage(mode: Expanded): string {
  return mode === 'auto' ? 'Expanded display is used automatically.' : `Expanded display is ${mode}.`;
}

/** The default interval of `\watch`, psql's. */
const WATCH_SECONDS = 2;

/** `\watch [SECONDS]`: a positive number of seconds (fractions allowed), at most a day. */
export function parseWatchInterval(arg: string): number {
  if (arg === '') return WATCH_SECONDS;
  const s = Number(arg);
  if (!/^\d+(\.\d+)?$/.test(arg) || !(s > 0) || s > 86_400) {
    throw new UsageError(`\\watch takes an interval in seconds, above 0 and at most 86400, not "${arg}"`, {
      hint: 'e.g. \\watch 5',
    });
  }
  return s;
}

/** The argument of `\i FILE`: a file name, which may be quoted ('my file.sql'). */
export function parseFileArg(command: string, arg: string): string {
  const quoted = /^'((?:[^']|'')*)'$/.exec(arg) ?? /^"((?:[^"]|"")*)"$/.exec(arg);
  const file = quoted ? quoted[1]!.replace(/''|""/g, (q) => q[0]!) : arg;
  if (!file) throw new UsageError(`${command} needs a file name`, { hint: `e.g. ${command} setup.sql` });
  return file;
}
