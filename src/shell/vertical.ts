// `\x` in the SQL shell: each record as a block of `field | value` lines, for rows too wide to read as a
// table (psql's expanded display).
import { JsonNumber } from '../api/exact-json.js';
import type { ResultField, ResultRow } from '../api/jobs.js';
import { stderrSafe, terminalSafe } from '../output/safe-text.js';
import { cellText } from '../output/view.js';

export function verticalView(schema: readonly ResultField[], rows: readonly ResultRow[]): string {
  if (rows.length === 0) return '(no rows)\n';
  // Names and values as a terminal shows them safely: control and invisible characters visibly, line feeds kept.
  const names = schema.map((f) => terminalSafe(f.name));
  const width = names.reduce((w, n) => Math.max(w, n.length), 0);
  const blocks = rows.map((row, i) => {
    const lines = schema.map((f, c) => {
      const v = row[f.name];
      const text = stderrSafe(v instanceof JsonNumber ? v.text : cellText(v));
      // A value over several lines keeps its continuation lines under the value column.
      return `${names[c]!.padEnd(width)} | ${text.replace(/\n/g, `\n${' '.repeat(width)} | `)}`;
    });
    return [`-[ RECORD ${i + 1} ]${'-'.repeat(Math.max(3, width - 8))}`, ...lines].join('\n');
  });
  return `${blocks.join('\n')}\n`;
}
