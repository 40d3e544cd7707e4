// The built bundle's libraries in dist/vendor/ (scripts/build.mjs): each is required by dist/cli.cjs as
// Node requires a CommonJS module, so its `module.exports` must be what src/ imports. In-process tests run
// src/ against node_modules and cannot see a mistake here; these run the bundle.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useFixture } from '../helpers/fixture.js';

// biome-ignore lint/suspicious/noExplicitAny: the test probes untyped module.exports
type Loose = any;
const vendor = createRequire(resolve(import.meta.dirname, '../../dist/vendor/x.cjs'));
const REPO_SRC = resolve(import.meta.dirname, '../../src');

describe('dist/vendor: what src/ imports of each library', () => {
  it.each([
    ['./ora.cjs', (m: Loose) => m({ isEnabled: false }).start], // import ora from 'ora'
    ['./jmespath.cjs', (m: Loose) => m.search], // import jmespath from 'jmespath'
    ['./yaml.cjs', (m: Loose) => m.parse && m.stringify],
    ['./hyparquet-writer.cjs', (m: Loose) => m.ParquetWriter && m.ByteWriter],
    ['./grpc-grpc-js.cjs', (m: Loose) => m.loadPackageDefinition && m.credentials.createSsl],
    ['./protobufjs-minimal.cjs', (m: Loose) => m.Reader.create && m.Writer.create],
    ['./apache-arrow.cjs', (m: Loose) => m.RecordBatchReader.from && m.makeVector],
  ])('%s', (file, member) => {
    expect(member(vendor(file))).toBeTypeOf('function');
  });
});

describe("zod's locales, left out of the bundle (scripts/build-plugins.mjs)", () => {
  it('the files the build plugin replaces exist, and src/ never reads z.locales', async () => {
    // @ts-expect-error a plain .mjs build script, without declarations
    const { ZOD_LOCALES } = (await import('../../scripts/build-plugins.mjs')) as { ZOD_LOCALES: RegExp };
    const zod = join(createRequire(import.meta.url).resolve('zod'), '..');
    for (const file of ['v4/locales/index.js', 'v4/locales/index.cjs'])
      expect(ZOD_LOCALES.test(join(zod, file)), file).toBe(true);
    expect(readFileSync(vendor.resolve('../cli.cjs'), 'utf8')).not.toMatch(/Ungültig|無効な入力/);
    const grep = readdirSync(join(REPO_SRC), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts'))
      .filter((e) =>
        /\bz\.locales\b|zod\/v4\/locales(?!\/en\.js')|from 'zod\/locales/.test(
          readFileSync(join(e.parentPath, e.name), 'utf8'),
        ),
      );
    expect(grep.map((e) => e.name)).toEqual([]);
  });
});

describe('commands through the bundle, one per library', () => {
  const fx = useFixture({}, { login: false });

  it('login, lists (zod, jmespath; csv by dlake itself), pull (yaml), Parquet', async () => {
    const login = await fx.spawn(['login', '-u', 'admin', '--password-stdin'], { input: 'admin-pass-1\n' });
    expect([login.code, login.stderr]).toEqual([0, expect.stringMatching(/^Logged in to /)]);
    expect(fx.readJson('credentials.json')).toBeTruthy();

    const space = JSON.stringify({ entityType: 'space', name: 'Bundled' });
    expect((await fx.run(['catalog', 'create', '--file', '-'], { input: space })).code).toBe(0);
    const table = await fx.spawn(['catalog', 'ls']);
    expect(table.stdout).toMatch(/^PATH\s+TYPE/);
    const csv = await fx.spawn(['catalog', 'ls', '-o', 'csv']);
    expect(csv.stdout).toMatch(/^PATH,TYPE,ID,TAG\n/);
    const query = await fx.spawn([
      'catalog',
      'ls',
      '--query',
      '[?containerType==`SPACE`].path',
      '-o',
      'json',
    ]);
    expect(JSON.stringify(JSON.parse(query.stdout))).toContain('Bundled');

    const dir = join(fx.configDir, 'defs');
    const pull = await fx.spawn(['pull', '--dir', dir]);
    expect([pull.code, pull.stderr]).toEqual([0, expect.stringMatching(/^Pulled 1 definition/)]);
    expect(readFileSync(join(dir, 'Bundled.yaml'), 'utf8')).toMatch(/^kind: space$/m);
    const plan = await fx.spawn(['plan', '--dir', dir, '--exit-code']);
    expect([plan.code, plan.stderr]).toEqual([0, '']);

    const parquet = join(fx.configDir, 'one.parquet');
    const sql = await fx.spawn(['sql', 'SELECT 1 AS a', '--out', parquet]);
    expect([sql.code, sql.stderr]).toEqual([0, expect.stringContaining('wrote 1 row')]);
  });
});
