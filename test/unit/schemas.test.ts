// The tolerance policy of the response schemas (docs/api-facts.md, "Response schemas: the tolerance
// policy"): fields the spec does not promise in every answer may be missing or null, unknown fields pass
// through, and the type variants real servers send are normalised in one place.
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { PatSchema, QueueSchema, UserSchema } from '../../src/api/schemas/admin.js';
import { CatalogEntitySchema, CatalogSummarySchema } from '../../src/api/schemas/catalog.js';
import { JobStatusSchema } from '../../src/api/schemas/jobs.js';
import { FieldSchemaSchema } from '../../src/api/schemas.js';
import { UserByNameSchema } from '../../src/api/users.js';
import { asReceived, rememberReceived } from '../../src/util/received.js';

describe('type variants, normalised once', () => {
  it('times: ISO strings as they are, epoch milliseconds made ISO', () => {
    const pat = PatSchema.parse({
      tid: 't',
      uid: 'u',
      label: 'l',
      createdAt: 1676821275323,
      expiresAt: '2023-03-21T15:41:15.323Z',
    });
    expect(pat.createdAt).toBe('2023-02-19T15:41:15.323Z');
    expect(pat.expiresAt).toBe('2023-03-21T15:41:15.323Z');
  });

  it('ids, tags and versions: strings or numbers, read as text', () => {
    expect(QueueSchema.parse({ id: 7, tag: 0, name: 'q' })).toMatchObject({ id: '7', tag: '0' });
    expect(UserSchema.parse({ id: 'u', name: 'n', tag: 3 }).tag).toBe('3');
  });

  it('a column type: {name} or a bare string; counts: numbers or digit strings', () => {
    const fields = z.array(FieldSchemaSchema).parse([
      { name: 'a', type: 'VARCHAR' },
      { name: 'b', type: { name: 'BIGINT' } },
    ]);
    expect(fields.map((f) => f.type.name)).toEqual(['VARCHAR', 'BIGINT']);
    expect(JobStatusSchema.parse({ jobState: 'COMPLETED', rowCount: '2' }).rowCount).toBe(2);
  });

  it('null where the spec shows a value counts as missing', () => {
    const job = JobStatusSchema.parse({
      jobState: 'RUNNING',
      endedAt: null,
      rowCount: null,
      errorMessage: null,
    });
    expect(job.endedAt).toBeUndefined();
    expect(job.rowCount).toBeUndefined();
  });
});

describe('fields the spec does not promise in every answer', () => {
  it('a user without a tag (service users, the hosted edition) is a user', () => {
    const service = { id: 'u', name: 'svc', roles: [], identityType: 'SERVICE_USER', active: true };
    expect(UserSchema.parse(service).tag).toBeUndefined();
    expect(UserByNameSchema.parse(service).tag).toBeUndefined();
  });

  it('a PAT record with only its id', () => {
    expect(PatSchema.parse({ tid: 't' })).toEqual({ tid: 't' });
  });

  it('unknown fields pass through', () => {
    expect(
      CatalogSummarySchema.parse({ id: 'i', path: ['a'], type: 'CONTAINER', stats: { n: 1 } }),
    ).toMatchObject({
      stats: { n: 1 },
    });
  });

  it('still refuses what dlake cannot do without (exit 7 names the field)', () => {
    expect(UserSchema.safeParse({ name: 'no-id' }).success).toBe(false);
    expect(JobStatusSchema.safeParse({ rowCount: 1 }).success).toBe(false);
    expect(PatSchema.safeParse({ tid: 't', createdAt: { not: 'a time' } }).success).toBe(false);
  });

  it("in zod's English words (zod/mini has none of its own: src/util/zod.ts)", () => {
    const r = CatalogSummarySchema.safeParse({ id: 'x', path: 'not-a-list', type: 'CONTAINER' });
    expect(r.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['path', 'Invalid input: expected array, received string'],
    ]);
  });
});

describe('file-system quotes in catalog paths', () => {
  it('drops the quotes a file-system source wraps its names in', () => {
    const s = CatalogSummarySchema.parse({
      id: 'dremio:/adls/"dist"',
      path: ['adls', '"dist"'],
      type: 'CONTAINER',
    });
    expect(s.path).toEqual(['adls', 'dist']);
    const e = CatalogEntitySchema.parse({ entityType: 'folder', id: 'x', path: ['adls', '"a"', '"b.csv"'] });
    expect(e.path).toEqual(['adls', 'a', 'b.csv']);
  });

  it('keeps names with quotes inside, and a view named with quotes', () => {
    const odd = CatalogSummarySchema.parse({ id: 'i', path: ['S', 'top "best".v2'], type: 'DATASET' });
    expect(odd.path).toEqual(['S', 'top "best".v2']);
    const view = CatalogSummarySchema.parse({
      id: 'v',
      path: ['S', '"quoted"'],
      type: 'DATASET',
      datasetType: 'VIRTUAL',
    });
    expect(view.path).toEqual(['S', '"quoted"']);
  });
});

describe('the objects as received', () => {
  it('json output gets the service objects back: its key order, its types', () => {
    const raw = JSON.parse(
      '{"tid":"t","label":"l","createdAt":1676821275323,"uid":"u","extra":[{"z":1,"a":2}]}',
    );
    const parsed = PatSchema.parse(raw);
    rememberReceived(parsed, raw);
    expect(JSON.stringify(asReceived(parsed))).toBe(JSON.stringify(raw));
    // A list dlake built from parsed objects (pages merged) gives the received objects inside.
    expect(JSON.stringify(asReceived({ data: [parsed] }))).toBe(JSON.stringify({ data: [raw] }));
  });

  it('objects dlake made itself are printed as they are, a `__proto__` key included', () => {
    const own = JSON.parse('{"__proto__": {"x": 1}, "b": 2}');
    const out = asReceived(own) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__', 'b']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});
