// A results page's JSON text straight to CSV lines, for a CSV export of a flat result: one scan of the text,
// fields copied out of it, no row objects. JSON.parse built 500 objects a page that lived only to be turned
// into text again: parsing them was a sixth of an export's CPU, and they were half its garbage collection
// (README "Benchmarks").
// Numbers are copied as the service wrote them (what the exact-number path gave, without its gate), strings
// are unescaped only when they hold a backslash. Anything off the common shape (a nested value, `rows` before
// `schema`, more rows than asked for, text that is not JSON) gives up: the caller then parses the page the
// ordinary way, which also reports what is wrong with it.
import { csvField } from './writers.js';

interface CsvPage {
  /** Every member of the body but `rows`, parsed. */
  envelope: Record<string, unknown>;
  /** The CSV lines of the rows, each ending in LF, in the order of `columns`. */
  csv: string;
  rows: number;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

class GiveUp extends Error {}
const giveUp = (): never => {
  throw new GiveUp();
};

/**
 * The page as CSV, or undefined when the page is not of the shape this reads. `columns(schema)` gives the
 * column names from the page's `schema` member (or undefined to give up, e.g. for nested types).
 */
export function csvFromResultsPage(
  text: string,
  limit: number,
  columns: (schema: unknown) => readonly string[] | undefined,
): CsvPage | undefined {
  try {
    return new Scanner(text).page(limit, columns);
  } catch (e) {
    // A member JSON.parse refuses is text that is not JSON: the ordinary path says so.
    if (e instanceof GiveUp || e instanceof SyntaxError) return undefined;
    throw e;
  }
}

class Scanner {
  private pos = 0;

  constructor(private readonly text: string) {}

  page(limit: number, columns: (schema: unknown) => readonly string[] | undefined): CsvPage {
    const envelope: Record<string, unknown> = {};
    let csv: string | undefined;
    let rows = 0;
    this.expect(123 /* { */);
    if (!this.eat(125 /* } */)) {
      do {
        const key = this.key();
        if (key === 'rows') {
          if (!('schema' in envelope) || csv !== undefined) giveUp();
          const names = columns(envelope.schema) ?? giveUp();
          [csv, rows] = this.rows(names, limit);
        } else {
          const start = this.skipWs();
          this.skipValue();
          Object.defineProperty(envelope, key, {
            value: JSON.parse(this.text.slice(start, this.pos)),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
      } while (this.eat(44 /* , */));
      this.expect(125 /* } */);
    }
    if (this.skipWs() !== this.text.length || csv === undefined) giveUp();
    return { envelope, csv: csv!, rows };
  }

  /** The rows array: CSV lines and their count. */
  private rows(names: readonly string[], limit: number): [string, number] {
    const width = names.length;
    const quoted = names.map((n) => JSON.stringify(n));
    const index = new Map(names.map((n, i) => [n, i]));
    const cells = new Array<string>(width);
    let out = '';
    let count = 0;
    this.expect(91 /* [ */);
    if (this.eat(93 /* ] */)) return ['', 0];
    do {
      if (++count > limit) giveUp();
      const start = this.pos;
      // Most rows hold every column in the schema's order: written as they are read. Any other row is
      // read again from its start, into cells by name.
      const line = this.orderedRow(quoted) ?? this.anyRow(start, quoted, index, cells);
      if (width > 0) out += line;
    } while (this.eat(44 /* , */));
    this.expect(93 /* ] */);
    return [out, count];
  }

  /** A row whose keys are exactly the columns, in order: its CSV line; else undefined. */
  private orderedRow(quoted: readonly string[]): string | undefined {
    const text = this.text;
    this.expect(123 /* { */);
    let line = '';
    for (let c = 0; c < quoted.length; c++) {
      if (c > 0 && !this.eat(44 /* , */)) return undefined;
      const q = quoted[c]!;
      if (!text.startsWith(q, this.skipWs())) return undefined;
      this.pos += q.length;
      this.expect(58 /* : */);
      line += c === 0 ? this.cell() : `,${this.cell()}`;
    }
    if (!this.eat(125 /* } */)) return undefined;
    return `${line}\n`;
  }

  /** Any row, from `start` (its `{`): keys in any order, missing, unknown or repeated (the last wins). */
  private anyRow(
    start: number,
    quoted: readonly string[],
    index: Map<string, number>,
    cells: string[],
  ): string {
    const text = this.text;
    this.pos = start;
    cells.fill('');
    this.expect(123 /* { */);
    if (!this.eat(125 /* } */)) {
      let expected = 0;
      do {
        this.skipWs();
        // Try the next column's key before reading the key.
        let c: number | undefined;
        const q = quoted[expected];
        if (q !== undefined && text.startsWith(q, this.pos)) {
          this.pos += q.length;
          c = expected;
        } else c = index.get(this.key(false));
        this.expect(58 /* : */);
        if (c === undefined) {
          this.skipWs();
          this.skipValue();
        } else {
          cells[c] = this.cell();
          expected = c + 1;
        }
      } while (this.eat(44 /* , */));
      this.expect(125 /* } */);
    }
    return `${cells.join(',')}\n`;
  }

  /** One value as a CSV field: strings quoted where needed, numbers as written, null as empty. */
  private cell(): string {
    const text = this.text;
    const c = text.charCodeAt(this.skipWs());
    if (c === 34 /* " */) return csvField(this.string());
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      NUMBER.lastIndex = this.pos;
      if (!NUMBER.test(text)) giveUp();
      const start = this.pos;
      this.pos = NUMBER.lastIndex;
      return text.slice(start, this.pos);
    }
    if (text.startsWith('true', this.pos)) {
      this.pos += 4;
      return 'true';
    }
    if (text.startsWith('false', this.pos)) {
      this.pos += 5;
      return 'false';
    }
    if (text.startsWith('null', this.pos)) {
      this.pos += 4;
      return '';
    }
    // An object or array (a nested value): written as JSON text by the ordinary path.
    return giveUp();
  }

  /** A member's key, then (with `colon`) its colon. */
  private key(colon = true): string {
    this.skipWs();
    const k = this.string();
    if (colon) this.expect(58 /* : */);
    return k;
  }

  /** The string starting at `pos`: sliced out when it has no escapes, else decoded by JSON.parse. */
  private string(): string {
    const text = this.text;
    const start = this.pos;
    if (text.charCodeAt(start) !== 34) giveUp();
    let i = start + 1;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        this.pos = i + 1;
        return text.slice(start + 1, i);
      }
      if (c === 92 /* \ */) break;
      if (c < 32 || Number.isNaN(c)) giveUp();
      i++;
    }
    // With escapes: find the end (a quote not escaped), and let JSON.parse decode it.
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 92) i += 2;
      else if (c === 34) break;
      else if (c < 32 || Number.isNaN(c)) giveUp();
      else i++;
    }
    this.pos = i + 1;
    return JSON.parse(text.slice(start, i + 1)) as string;
  }

  /** Moves past one value of any kind (checked by JSON.parse later where it is kept). */
  private skipValue(): void {
    const text = this.text;
    const c = text.charCodeAt(this.pos);
    if (c === 34) {
      this.string();
      return;
    }
    if (c === 123 || c === 91) {
      let depth = 0;
      do {
        const d = text.charCodeAt(this.pos);
        if (d === 34) {
          this.string();
          continue;
        }
        if (d === 123 || d === 91) depth++;
        else if (d === 125 || d === 93) depth--;
        else if (Number.isNaN(d)) giveUp();
        this.pos++;
      } while (depth > 0);
      return;
    }
    // A number or literal: up to the next delimiter.
    const start = this.pos;
    while (this.pos < text.length && !/[\s,}\]]/.test(text[this.pos]!)) this.pos++;
    if (this.pos === start) giveUp();
  }

  private skipWs(): number {
    const text = this.text;
    let c = text.charCodeAt(this.pos);
    while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(++this.pos);
    return this.pos;
  }

  private eat(code: number): boolean {
    if (this.text.charCodeAt(this.skipWs()) !== code) return false;
    this.pos++;
    return true;
  }

  private expect(code: number): void {
    if (!this.eat(code)) giveUp();
  }
}
