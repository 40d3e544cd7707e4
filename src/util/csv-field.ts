// The one CSV field encoder of dlake (docs/cli-contract.md "Streams and formats"): RFC 4180 with LF line ends,
// a field quoted only when it holds a comma, a double quote, CR or LF, inner quotes doubled, null the empty
// field. Every CSV dlake writes goes through it: the exports (rows, results pages read as bytes, Arrow
// batches) and every command's `-o csv`. Strings and bytes are encoded by the same rule, so a cell is the
// same bytes whichever way its rows arrived.

const QUOTE = 34;

/** What makes a field need quotes: a double quote, a comma, CR or LF. */
const SPECIAL = '",\r\n';
const NEEDS_QUOTES = new RegExp(`[${SPECIAL}]`);
/** 1 for the bytes of SPECIAL (all ASCII: the same in UTF-8 bytes as in UTF-16 text). */
const CSV_SPECIAL = new Uint8Array(256);
for (let i = 0; i < SPECIAL.length; i++) CSV_SPECIAL[SPECIAL.charCodeAt(i)] = 1;

/**
 * One field as text; null (and undefined) is the empty field. Written here rather than by csv-stringify,
 * which cost a fifth of an export's CPU in its per-field option handling (bench/profile.ts); the strict RFC
 * 4180 reader of the tests and a property test hold it to the format.
 */
export function csvField(text: string | null | undefined): string {
  if (text == null) return '';
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A CSV line of fields (without its line end). */
export const csvLine = (fields: readonly (string | null | undefined)[]): string =>
  fields.map(csvField).join(',');

/** Where byte-level encoders write: a growing buffer with a write position. */
export interface ByteOut {
  buf: Uint8Array;
  w: number;
  reserve(n: number): void;
}

/**
 * One field from UTF-8 bytes `src[from, to)`, written into `out`: the same rule as `csvField` (every special
 * character is ASCII, so the bytes are scanned as they are). One pass for a field without a special
 * character, the common case: its bytes are copied as they are checked; at the first special one, the field is
 * written again from its start, quoted.
 */
export function putCsvField(out: ByteOut, src: Uint8Array, from: number, to: number): void {
  out.reserve(to - from);
  let buf = out.buf;
  let w = out.w;
  let k = from;
  for (; k < to; k++) {
    const c = src[k]!;
    if (CSV_SPECIAL[c] === 1) break;
    buf[w++] = c;
  }
  if (k === to) {
    out.w = w;
    return;
  }
  // Quoted: at most every byte doubled, and the two quotes.
  out.reserve(2 * (to - from) + 2);
  buf = out.buf;
  w = out.w;
  buf[w++] = QUOTE;
  for (k = from; k < to; k++) {
    const c = src[k]!;
    if (c === QUOTE) buf[w++] = QUOTE;
    buf[w++] = c;
  }
  buf[w++] = QUOTE;
  out.w = w;
}
