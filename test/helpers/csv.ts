// A strict RFC 4180 reader for tests: quoted fields may hold commas, quotes (doubled), CR and LF; records end
// with LF. Throws on anything malformed, so a test reading an export also proves it well-formed.

export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  let fieldStart = true;
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        const next = text[i];
        if (next !== ',' && next !== '\n' && next !== undefined)
          throw new Error(`CSV: text after a closing quote at ${i}`);
        continue;
      }
      field += ch;
      i++;
      continue;
    }
    if (ch === '"') {
      if (!fieldStart) throw new Error(`CSV: a quote inside an unquoted field at ${i}`);
      quoted = true;
      fieldStart = false;
      i++;
      continue;
    }
    if (ch === ',') {
      record.push(field);
      field = '';
      fieldStart = true;
      i++;
      continue;
    }
    if (ch === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      fieldStart = true;
      i++;
      continue;
    }
    if (ch === '\r') throw new Error(`CSV: a bare CR outside quotes at ${i}`);
    field += ch;
    fieldStart = false;
    i++;
  }
  if (quoted) throw new Error('CSV: unterminated quoted field');
  if (field !== '' || record.length > 0) throw new Error('CSV: the last record has no line end');
  return records;
}

/** The CSV text a value must become (docs/cli-contract.md "Streams and formats"): null and '' empty, booleans
 * true/false, numbers as JSON wrote them. */
export function expectedCsvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}
