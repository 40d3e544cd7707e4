// `\x` in the SQL shell: each record as a block of `field | value` lines, for rows too wide to read as a
// table (psql's expanded display).
import { JsonNumber } from '../api/exact-json.js';
import type { ResultField, ResultRow } from '../api/jobs.js';
import { cellText } from '../output/view.js';

export function verticalView(schema: readonly ResultField[], rows: readonly ResultRow[]): string {
  if (rows.length === 0) return '(no rows)\n';
  const width = Math.max(...schema.map((f) => f.name.length));
  const blocks = rows.map((row, i) => {
    const lines = schema.map((f) => {
      const v = row[f.name];
      const text = v instanceof JsonNumber ? v.text : cellText(v);
      // A value over several lines keeps its continuation lines under the value column.
      return `${f.name.padEnd(width)} | ${text.replace(/\n/g, `\n${' '.repeat(width)} | `)}`;
    });
    return [`-[ RECORD ${i + 1} ]${'-'.repeat(Math.max(3, width - 8))}`, ...lines].join('\n');
  });
  return `${blocks.join('\n')}\n`;
}
