import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { PLAIN } from '../../src/output/color.js';
import { render } from '../../src/output/render.js';
import type { View } from '../../src/output/view.js';

interface Item {
  name: string;
  size: number;
  note?: string | null;
}
const items: Item[] = [
  { name: 'alpha', size: 1, note: 'plain' },
  { name: 'beta', size: 22, note: 'has, comma and "quotes"\nand a newline' },
  { name: 'gamma', size: 333, note: null },
];
const view: View<Item> = {
  columns: [
    { header: 'NAME', value: (r) => r.name },
    { header: 'SIZE', value: (r) => r.size },
    { header: 'NOTE', value: (r) => r.note },
  ],
};
const opts = (format: 'table' | 'json' | 'ndjson' | 'csv', query?: string) => ({
  format,
  query,
  theme: PLAIN,
});

describe('renderers', () => {
  it('json prints the objects as they are', async () => {
    const out = await render({ data: items, view }, opts('json'));
    expect(JSON.parse(out.stdout)).toEqual(items);
  });

  it('ndjson prints one object per line', async () => {
    const out = await render({ data: items, view }, opts('ndjson'));
    expect(
      out.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(items);
  });

  it('csv prints the view columns with RFC 4180 quoting and empty nulls', async () => {
    const out = await render({ data: items, view }, opts('csv'));
    expect(out.stdout).toBe(
      'NAME,SIZE,NOTE\nalpha,1,plain\nbeta,22,"has, comma and ""quotes""\nand a newline"\ngamma,333,\n',
    );
  });

  it('table aligns columns and keeps each row on one line', async () => {
    const out = await render({ data: items, view }, opts('table'));
    const lines = out.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^NAME\s+SIZE\s+NOTE$/);
    expect(lines[2]).toContain('⏎and a newline');
    expect(lines[1]!.indexOf('1')).toBe(lines[0]!.indexOf('SIZE'));
  });

  it('an empty table prints nothing on stdout and a note for stderr', async () => {
    const out = await render({ data: [], view: { ...view, empty: 'No items.' } }, opts('table'));
    expect(out).toEqual({ stdout: '', note: 'No items.' });
    expect((await render({ data: [], view }, opts('csv'))).stdout).toBe('NAME,SIZE,NOTE\n');
  });

  it('shows a single object as field/value rows', async () => {
    const out = await render({ data: { id: 'x1', tags: ['a', 'b'] } }, opts('table'));
    expect(out.stdout).toMatch(/FIELD\s+VALUE\nid\s+x1\ntags\s+\["a","b"\]/);
  });

  it('applies --query before every format', async () => {
    expect(JSON.parse((await render({ data: items, view }, opts('json', '[].name'))).stdout)).toEqual([
      'alpha',
      'beta',
      'gamma',
    ]);
    expect((await render({ data: items, view }, opts('table', '[?size > `10`].name | [0]'))).stdout).toBe(
      'beta\n',
    );
    expect((await render({ data: items, view }, opts('csv', '[].{n: name}'))).stdout).toBe(
      'N\nalpha\nbeta\ngamma\n',
    );
  });

  it('refuses an invalid query with a usage error', async () => {
    await expect(render({ data: items }, opts('json', '[?'))).rejects.toThrow(UsageError);
  });
});

describe('fitting the terminal width', () => {
  const plain = PLAIN;
  const rows = [
    { id: '7f1c2a9e-0d51-4d8e-9a3b-2b7f1f0f6c11', description: 'a long free-text description of the thing' },
  ];
  const view: View<(typeof rows)[number]> = {
    columns: [
      { header: 'ID', value: (r) => r.id },
      { header: 'DESCRIPTION', value: (r) => r.description },
    ],
  };

  it('cuts free-text columns with an ellipsis, never ids, so no line is wider than the terminal', async () => {
    const out = await render({ data: rows, rows, view }, { format: 'table', theme: plain, width: 60 });
    for (const line of out.stdout.trimEnd().split('\n')) expect([...line].length).toBeLessThanOrEqual(60);
    expect(out.stdout).toContain(rows[0]!.id);
    expect(out.stdout).toContain('…');
  });

  it('prints one block per row when even that does not fit, values whole', async () => {
    const out = await render({ data: rows, rows, view }, { format: 'table', theme: plain, width: 40 });
    expect(out.stdout).toBe(`ID           ${rows[0]!.id}\nDESCRIPTION  ${rows[0]!.description}\n`);
  });

  it('cuts nothing without a terminal', async () => {
    const out = await render({ data: rows, rows, view }, { format: 'table', theme: plain });
    expect(out.stdout).toContain(rows[0]!.description);
    expect(out.stdout.split('\n')).toHaveLength(3);
  });
});
