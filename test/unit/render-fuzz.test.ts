// Property tests for what users and the service feed dlake: the four renderers given any
// JSON, `--data` given any text, and the settings resolver given any mix of flags, environment and profiles.
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type GlobalFlags, resolveSettings } from '../../src/auth/settings.js';
import { readJsonArgument } from '../../src/commands/common.js';
import { ConfigFileSchema, CredentialsFileSchema } from '../../src/config/schema.js';
import type { StoreSnapshot } from '../../src/config/store.js';
import { DlakeError, ExitCode, ServiceError, UsageError } from '../../src/errors.js';
import { PLAIN } from '../../src/output/color.js';
import { render } from '../../src/output/render.js';
import type { Renderable, View } from '../../src/output/view.js';

const FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
type Format = (typeof FORMATS)[number];
const opts = (format: Format, query?: string) => ({ format, query, theme: PLAIN });
const RUNS = { numRuns: 150 };

// Strings that break naive renderers: separators, quotes, every kind of line break, escape sequences,
// tabs, astral and combining characters, lone surrogates.
const nastyUnit = fc.constantFrom(
  'a',
  'Z',
  '0',
  ' ',
  ',',
  '"',
  "'",
  '\n',
  '\r',
  '\r\n',
  '\t',
  '\u001b[31m',
  '\u0000',
  '\u007f',
  '\u009b',
  'é',
  'e\u0301',
  '😀',
  '漢',
  '\u2028',
  '\ud800',
  '=',
  '-',
);
const nastyString = fc.oneof(fc.string({ unit: nastyUnit }), fc.string({ unit: 'binary' }), fc.string());
const anyJson = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.jsonValue({ maxDepth: 3, stringUnit: nastyUnit }),
  fc.jsonValue({ maxDepth: 8, depthSize: 'large' }),
);
const keyString = fc.oneof(nastyString, fc.constantFrom('id', 'name', 'type', 'length', 'constructor', '0'));
/** Lists of objects whose keys differ from row to row, as `api` and `--query` results are. */
const mixedRows = fc.array(fc.dictionary(keyString, anyJson, { maxKeys: 6 }), { maxLength: 8 });
const anyData = fc.oneof(anyJson, mixedRows, fc.dictionary(keyString, anyJson), fc.array(anyJson));

/** Renders, and checks that the only failure is one of dlake's own (which the CLI turns into an exit code). */
async function renderOrDlakeError<T>(r: Renderable<T>, format: Format, query?: string) {
  try {
    return await render(r, opts(format, query));
  } catch (e) {
    if (!(e instanceof DlakeError)) throw new Error(`render threw ${String(e)} (not a DlakeError)`);
    return e;
  }
}

async function rendered<T>(r: Renderable<T>, format: Format) {
  const out = await renderOrDlakeError(r, format);
  if (out instanceof DlakeError) throw new Error(`render failed on valid JSON: ${out.message}`);
  return out;
}

/**
 * A strict RFC 4180 reader for dlake's CSV (LF record ends): every record ends with LF; a field is quoted
 * exactly when it holds a comma, a double quote, CR or LF (docs/cli-contract.md "Streams and formats"), with
 * `""` for a quote inside.
 */
function parseCsv(text: string): string[][] {
  if (!text.endsWith('\n')) throw new Error('the CSV does not end with LF');
  const records: string[][] = [];
  let i = 0;
  while (i < text.length) {
    const record: string[] = [];
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= text.length) throw new Error('unterminated quoted field');
          if (text[i] === '"') {
            if (text[i + 1] !== '"') break;
            i++;
          }
          field += text[i++];
        }
        i++;
        if (!/[",\r\n]/.test(field)) throw new Error(`needlessly quoted field ${JSON.stringify(field)}`);
      } else {
        while (i < text.length && text[i] !== ',' && text[i] !== '\n') {
          if (text[i] === '"' || text[i] === '\r') {
            throw new Error(`raw ${JSON.stringify(text[i])} in an unquoted field at offset ${i}`);
          }
          field += text[i++];
        }
      }
      record.push(field);
      if (text[i] === ',') i++;
      else if (text[i] === '\n') {
        i++;
        break;
      } else throw new Error(`expected a comma or LF at offset ${i}`);
    }
    records.push(record);
  }
  return records;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** The cell of docs/cli-contract.md "Streams and formats": null and missing are empty, scalars as they are,
 * objects and arrays as compact JSON. */
function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** The table/csv grid that docs/cli-contract.md "Streams and formats" describes for data without a view:
 * independent of the renderer's code. */
function expectedGrid(data: unknown[] | Record<string, unknown>): { headers: string[]; rows: string[][] } {
  if (!Array.isArray(data)) {
    return { headers: ['FIELD', 'VALUE'], rows: Object.entries(data).map(([k, v]) => [k, cell(v)]) };
  }
  const keys: string[] = [];
  for (const r of data) if (isRecord(r)) for (const k of Object.keys(r)) if (!keys.includes(k)) keys.push(k);
  if (keys.length === 0) return { headers: ['VALUE'], rows: data.map((r) => [cell(r)]) };
  return {
    headers: keys.map((k) => k.toUpperCase()),
    // A row that is not an object has none of the columns (not, say, a string's `length`).
    rows: data.map((r) => keys.map((k) => (isRecord(r) && Object.hasOwn(r, k) ? cell(r[k]) : ''))),
  };
}

/** JSON has one zero: `-0` from JSON.parse("-0") prints as `0`. */
function withoutNegativeZero(v: unknown): unknown {
  if (Object.is(v, -0)) return 0;
  if (Array.isArray(v)) return v.map(withoutNegativeZero);
  if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withoutNegativeZero(x)]));
  return v;
}

function nestedArray(depth: number): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

describe('renderers, given any JSON the service might send', () => {
  it('never throw anything but a DlakeError, in any format, with or without --query', async () => {
    const query = fc.oneof(
      fc.constantFrom('[]', '[0]', '[].name', '*', 'length(@)', 'keys(@)', '[?id]', 'abs(@)', 'a.b.c'),
      nastyString,
    );
    await fc.assert(
      fc.asyncProperty(anyData, fc.constantFrom(...FORMATS), fc.option(query), async (data, format, q) => {
        const out = await renderOrDlakeError({ data }, format, q ?? undefined);
        if (out instanceof DlakeError)
          expect(out).toBeInstanceOf(UsageError); // an invalid --query
        else expect(typeof out.stdout).toBe('string');
      }),
      RUNS,
    );
  });

  it('json prints the data back exactly', async () => {
    await fc.assert(
      fc.asyncProperty(anyData, async (data) => {
        const out = await rendered({ data }, 'json');
        expect(out.stdout.endsWith('\n')).toBe(true);
        expect(JSON.parse(out.stdout)).toEqual(withoutNegativeZero(data));
      }),
      RUNS,
    );
  });

  it('ndjson prints one parseable line per item (the value itself when it is not a list)', async () => {
    await fc.assert(
      fc.asyncProperty(anyData, async (data) => {
        const out = await rendered({ data }, 'ndjson');
        const items = Array.isArray(data) ? data : [data];
        const lines = out.stdout.split('\n');
        expect(lines.pop()).toBe('');
        expect(lines.map((l) => JSON.parse(l))).toEqual(withoutNegativeZero(items));
      }),
      RUNS,
    );
  });

  it('csv has a header and parses back (RFC 4180) to the columns and cells of docs/cli-contract.md "Streams and formats"', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(mixedRows, fc.array(anyJson), fc.dictionary(keyString, anyJson)),
        async (data) => {
          const out = await rendered({ data }, 'csv');
          const grid = expectedGrid(data);
          expect(parseCsv(out.stdout)).toEqual([grid.headers, ...grid.rows]);
        },
      ),
      RUNS,
    );
  });

  it('table keeps each row on one line, with no control characters', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(mixedRows, fc.array(anyJson), fc.dictionary(keyString, anyJson)),
        async (data) => {
          const out = await rendered({ data }, 'table');
          const rows = expectedGrid(data).rows.length;
          if (rows === 0) {
            expect(out).toEqual({ stdout: '', note: 'No results.' });
            return;
          }
          const lines = out.stdout.split('\n');
          expect(lines.pop()).toBe('');
          expect(lines).toHaveLength(rows + 1);
          // Line breaks show as ⏎; CR, escape sequences and other controls never reach the terminal raw.
          expect(out.stdout.replace(/\n/g, '')).not.toMatch(/\p{Cc}/u);
        },
      ),
      RUNS,
    );
  });

  it('a command view over arbitrary field values renders in every format', async () => {
    interface Row {
      id: unknown;
      name: unknown;
      note?: unknown;
    }
    const view: View<Row> = {
      columns: [
        { header: 'ID', value: (r) => r.id },
        { header: 'NAME', value: (r) => r.name },
        { header: 'NOTE', value: (r) => r.note },
      ],
    };
    const rowsArb = fc.array(
      fc.record({ id: anyJson, name: nastyString, note: anyJson }, { requiredKeys: [] }),
      {
        maxLength: 6,
      },
    );
    await fc.assert(
      fc.asyncProperty(rowsArb, async (data) => {
        const cells = data.map((r) => [cell(r.id), cell(r.name), cell(r.note)]);
        const csv = await rendered({ data, view }, 'csv');
        expect(parseCsv(csv.stdout)).toEqual([['ID', 'NAME', 'NOTE'], ...cells]);
        const table = await rendered({ data, view }, 'table');
        if (data.length > 0) expect(table.stdout.split('\n')).toHaveLength(data.length + 2);
        expect(JSON.parse((await rendered({ data, view }, 'json')).stdout)).toEqual(
          withoutNegativeZero(data),
        );
      }),
      RUNS,
    );
  });

  it('an answer nested too deeply to print fails with exit 7 in every format, never a crash', async () => {
    const data = [nestedArray(100_000)];
    for (const format of FORMATS) {
      const out = await renderOrDlakeError({ data }, format);
      expect(out, format).toBeInstanceOf(ServiceError);
      expect((out as ServiceError).exitCode).toBe(ExitCode.service);
    }
    // Nesting that real answers have is printed.
    expect(JSON.parse((await rendered({ data: nestedArray(200) }, 'json')).stdout)).toEqual(nestedArray(200));
  });
});

describe('--data parsing', () => {
  const stdinOf = (text: string) => Readable.from([Buffer.from(text)]) as unknown as NodeJS.ReadStream;
  const jsonText = fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.jsonValue().map((v) => JSON.stringify(v, null, 2)),
    // Almost JSON: cut short, or with one character changed.
    fc
      .tuple(
        fc.jsonValue().map((v) => JSON.stringify(v)),
        fc.nat(),
        nastyUnit,
      )
      .map(([t, n, c]) => (n % 2 ? t.slice(0, n % (t.length + 1)) : t.slice(0, n % (t.length + 1)) + c)),
    nastyString,
  );

  /** JSON.parse is the oracle: the value it gives, or a usage error naming the source. */
  async function check(text: string, arg: string, stdin = stdinOf('')) {
    let expected: { value: unknown } | undefined;
    try {
      expected = { value: JSON.parse(text) };
    } catch {}
    const got = await readJsonArgument(arg, stdin).then(
      (value) => ({ value }),
      (e: unknown) => e,
    );
    if (expected) expect(got).toEqual(expected);
    else {
      expect(got).toBeInstanceOf(UsageError);
      expect((got as UsageError).message).toMatch(/^--data( \(.*\))? is not valid JSON: /);
    }
  }

  it('inline text either parses or is a usage error', async () => {
    await fc.assert(
      fc.asyncProperty(
        jsonText.filter((t) => !t.startsWith('@')),
        (text) => check(text, text),
      ),
      RUNS,
    );
  });

  it('@- reads standard input: it either parses or is a usage error', async () => {
    await fc.assert(
      fc.asyncProperty(jsonText, async (text) => {
        // One trailing line end is dropped, as from `echo`: whitespace to JSON, so the oracle is unchanged.
        await check(text.replace(/\r?\n$/, ''), '@-', stdinOf(text));
      }),
      RUNS,
    );
  });

  it('@FILE reads the file, and a file that cannot be read is a usage error naming it', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'dlake-data-'));
    try {
      await fc.assert(
        fc.asyncProperty(jsonText, async (text) => {
          const file = join(dir, 'body.json');
          writeFileSync(file, text);
          await check(text, `@${file}`);
        }),
        { numRuns: 50 },
      );
      await expect(readJsonArgument(`@${join(dir, 'missing.json')}`, stdinOf(''))).rejects.toThrow(
        new UsageError(`cannot read ${join(dir, 'missing.json')}: no such file or folder`),
      );
      await expect(readJsonArgument('@', stdinOf(''))).rejects.toBeInstanceOf(UsageError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('settings precedence, for any mix of flags, environment and profiles', () => {
  const NAMES = ['default', 'dev', 'prod', 'ci'] as const;
  const val = (prefix: string) =>
    fc.option(fc.constantFrom(`${prefix}-1`, `${prefix}-2`), { nil: undefined });
  const profileArb = fc.record(
    {
      url: fc.constantFrom('http://p-url-a', 'http://p-url-b'),
      authUrl: fc.constantFrom('http://p-auth-a', 'http://p-auth-b'),
      output: fc.constantFrom('json', 'csv'),
    },
    { requiredKeys: [] },
  );
  const world = fc.record({
    profiles: fc.dictionary(fc.constantFrom(...NAMES), profileArb, { maxKeys: 4 }),
    currentProfile: fc.option(fc.constantFrom(...NAMES), { nil: undefined }),
    tokenFor: fc.subarray([...NAMES]),
    flags: fc.record(
      {
        profile: fc.constantFrom(...NAMES),
        url: val('http://flag-url'),
        authUrl: val('http://flag-auth'),
        timeout: val('5s'),
        caFile: val('/flag/ca'),
        output: fc.constantFrom('ndjson', 'table'),
      },
      { requiredKeys: [] },
    ),
    // An empty variable counts as unset, as shells and CI systems use it.
    env: fc.record(
      {
        DLAKE_PROFILE: fc.constantFrom(...NAMES, ''),
        DLAKE_URL: fc.constantFrom('http://env-url', ''),
        DLAKE_AUTH_URL: fc.constantFrom('http://env-auth', ''),
        DLAKE_TOKEN: fc.constantFrom('env-token', ''),
        DLAKE_TIMEOUT: fc.constantFrom('9s', ''),
        DLAKE_CA_FILE: fc.constantFrom('/env/ca', ''),
        DLAKE_OUTPUT: fc.constantFrom('csv', 'json', ''),
        DLAKE_CLIENT_ID: fc.constantFrom('cid', ''),
        DLAKE_CLIENT_SECRET: fc.constantFrom('csecret', ''),
      },
      { requiredKeys: [] },
    ),
    allowNewProfile: fc.boolean(),
  });

  it('flag > environment > profile > default, except that an explicit --profile makes its URLs and token win', () => {
    fc.assert(
      fc.property(world, (w) => {
        const snapshot: StoreSnapshot = {
          config: ConfigFileSchema.parse({ profiles: w.profiles, currentProfile: w.currentProfile }),
          credentials: CredentialsFileSchema.parse({
            tokens: Object.fromEntries(
              w.tokenFor.map((n) => [n, { kind: 'bearer', token: `t-${n}`, obtainedVia: 'pat' }]),
            ),
          }),
        };
        const flags = w.flags as GlobalFlags;
        const env = w.env as NodeJS.ProcessEnv;
        const set = (v: string | undefined) => (v ? v : undefined);

        // The rule of docs/cli-contract.md "Global options, environment and precedence", written out
        // independently of the resolver.
        const name = flags.profile
          ? { value: flags.profile, source: 'flag' }
          : set(env.DLAKE_PROFILE)
            ? { value: env.DLAKE_PROFILE, source: 'environment', name: 'DLAKE_PROFILE' }
            : w.currentProfile
              ? { value: w.currentProfile, source: 'profile' }
              : { value: 'default', source: 'default' };
        const profile = w.profiles[name.value as string];
        if (!profile && name.source !== 'default' && !w.allowNewProfile) {
          const fail = () => resolveSettings(flags, env, snapshot, { allowNewProfile: w.allowNewProfile });
          expect(fail).toThrow(UsageError);
          expect(fail).toThrow(`unknown profile "${name.value}"`);
          return;
        }
        const explicit = name.source === 'flag';
        const ignored: string[] = [];
        const choose = (
          flag: string | undefined,
          envName: string,
          stored: string | undefined,
          exception: boolean,
        ) => {
          if (flag) return { value: flag, source: 'flag' };
          if (exception && stored && set(env[envName])) ignored.push(envName);
          if (set(env[envName]) && !(exception && stored))
            return { value: env[envName], source: 'environment', name: envName };
          if (stored) return { value: stored, source: 'profile' };
          return undefined;
        };
        const tokenOverridden = explicit && w.tokenFor.includes(name.value as (typeof NAMES)[number]);
        if (tokenOverridden && set(env.DLAKE_TOKEN)) ignored.push('DLAKE_TOKEN');
        const url = choose(flags.url, 'DLAKE_URL', profile?.url, explicit);
        // A login to another URL moves the profile there: its token endpoint stays behind with its old URL.
        const moved =
          w.allowNewProfile && profile?.url !== undefined && url !== undefined && url.value !== profile.url;
        const expected = {
          profileName: name,
          profile,
          url,
          authUrl: choose(flags.authUrl, 'DLAKE_AUTH_URL', moved ? undefined : profile?.authUrl, explicit),
          timeout: choose(flags.timeout, 'DLAKE_TIMEOUT', undefined, false) ?? {
            value: '30s',
            source: 'default',
          },
          caFile: choose(flags.caFile, 'DLAKE_CA_FILE', undefined, false),
          output: choose(flags.output, 'DLAKE_OUTPUT', profile?.output, false) ?? {
            value: 'table',
            source: 'default',
          },
          envToken: tokenOverridden ? undefined : set(env.DLAKE_TOKEN),
          envClientCredentials:
            set(env.DLAKE_CLIENT_ID) && set(env.DLAKE_CLIENT_SECRET)
              ? { clientId: env.DLAKE_CLIENT_ID, clientSecret: env.DLAKE_CLIENT_SECRET }
              : undefined,
          envClientId: set(env.DLAKE_CLIENT_ID),
          // None of these URLs is a hosted edition's host: the edition is the self-hosted one by default.
          edition: { value: 'software', source: 'default' },
          projectId: undefined,
        };
        const got = resolveSettings(flags, env, snapshot, { allowNewProfile: w.allowNewProfile });
        const { ignoredEnv, ...rest } = got;
        expect(rest).toEqual(expected);
        expect([...ignoredEnv].sort()).toEqual(ignored.sort());
      }),
      { numRuns: 500 },
    );
  });
});
