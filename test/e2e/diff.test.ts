// `dlake diff -p A -p B [KIND...]` (docs/cli-contract.md "Fleets"): two estates read as `pull` reads them and
// compared as `plan` compares, printed as the plan that turns A into B; exit 0 when they are the same, 1 when
// they differ; --map renames A's users and roles as B names them.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFailure, useFixture } from '../helpers/fixture.js';

// Two servers, each logged in to below as a profile of A's config folder.
const a = useFixture({}, { login: false });
const b = useFixture({}, { login: false });
const tmp = mkdtempSync(join(tmpdir(), 'dlake-diff-'));
/** dlake with A's config folder, where both profiles are stored. */
const run = (args: string[]) => a.run(args, { url: false });

beforeAll(async () => {
  const ok = async (args: string[], input?: string) => {
    const r = await a.run(args, { url: false, input });
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  };
  for (const [name, fx] of [
    ['a', a],
    ['b', b],
  ] as const) {
    await ok(['login', '-p', name, '--url', fx.emu.url, '-u', 'admin', '--password-stdin'], 'admin-pass-1\n');
  }
  const post = (p: string, body: unknown) =>
    ok(['-p', p, 'api', 'POST', 'catalog', '--data', JSON.stringify(body)]);
  for (const p of ['a', 'b']) {
    await post(p, { entityType: 'space', name: 'Sales' });
    await post(p, { entityType: 'folder', path: ['Sales', 'reports'] });
    await post(p, {
      entityType: 'dataset',
      type: 'VIRTUAL_DATASET',
      path: ['Sales', 'reports', 'q1'],
      sql: p === 'a' ? 'SELECT 1 AS n' : 'SELECT 2 AS n',
    });
  }
  await post('a', { entityType: 'space', name: 'OnlyInA' });
  await post('b', { entityType: 'space', name: 'OnlyInB' });
  await ok(['-p', 'a', 'user', 'create', 'alice']);
  await ok(['-p', 'b', 'user', 'create', 'alicia']);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('dlake diff', () => {
  it('prints the plan from A to B and exits 1: creates, updates with their fields, deletes', async () => {
    const r = await run(['diff', '-p', 'a', '-p', 'b', 'space', 'folder', 'view']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe(
      [
        '- delete space OnlyInA',
        '+ create space OnlyInB',
        '~ update view Sales/reports/q1',
        '    sql: "SELECT 1 AS n" → "SELECT 2 AS n"',
        'a → b: 1 to create, 1 to update, 1 to delete.',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toBe('');
    // Only reads, on both servers.
    for (const fx of [a, b]) {
      expect(fx.emu.log.entries.length).toBeGreaterThan(0);
      expect(fx.emu.log.entries.every((e) => e.method === 'GET')).toBe(true);
    }
  });

  it('the same estate twice is no difference: exit 0', async () => {
    const r = await run(['diff', '-p', 'a', '-p', 'a']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('a → a: 0 to create, 0 to update, 0 to delete.\n');
  });

  it('-o json is the plan as `plan -o json` gives it; KIND chooses what is compared', async () => {
    const r = await run(['diff', '-p', 'a', '-p', 'b', 'view', '-o', 'json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        action: 'update',
        kind: 'view',
        path: ['Sales', 'reports', 'q1'],
        changes: [{ field: 'sql', from: 'SELECT 1 AS n', to: 'SELECT 2 AS n' }],
      },
    ]);
  });

  it("--map renames A's users as B names them", async () => {
    const without = await run(['diff', '-p', 'a', '-p', 'b', 'user']);
    expect(without.code).toBe(1);
    expect(without.stdout).toContain('- delete user alice');
    expect(without.stdout).toContain('+ create user alicia');
    const map = join(tmp, 'names.yaml');
    writeFileSync(map, 'users:\n  alice: alicia\n');
    const mapped = await run(['diff', '-p', 'a', '-p', 'b', 'user', '--map', map]);
    expect(mapped.stdout).not.toMatch(/alic/);
    expect(mapped.code, mapped.stdout).toBe(0);
  });

  it('two profiles exactly, and known kinds: exit 2 before anything is sent', async () => {
    expectFailure(await run(['diff', '-p', 'a']), 2, 'name two profiles (-p A -p B), not 1');
    expectFailure(await run(['diff', '-p', 'a', '-p', 'b', 'tables']), 2, 'KIND');
    expect([...a.emu.log.entries, ...b.emu.log.entries]).toEqual([]);
  });
});
