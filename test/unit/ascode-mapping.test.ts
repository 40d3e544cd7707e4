// `--map`: users and roles renamed wherever a definition names them, in any case, and nothing else touched.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Definition } from '../../src/ascode/definitions.js';
import { applyNameMap, readNameMap, renameInCondition, unusedNames } from '../../src/ascode/mapping.js';
import { UsageError } from '../../src/errors.js';

const tmp = mkdtempSync(join(tmpdir(), 'dlake-map-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const mapFile = (text: string) => {
  const file = join(tmp, `m${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, text);
  return file;
};
const map = readNameMap(mapFile("users:\n  Alice: alice.prod\n  o'hara: ohara\nroles:\n  etl: etl_prod\n"));

describe('renameInCondition', () => {
  it.each([
    ["USER = 'alice'", "USER = 'alice.prod'"],
    ["user in ('ALICE', 'bob')", "user in ('alice.prod', 'bob')"],
    ["USER NOT IN ('bob','alice')", "USER NOT IN ('bob','alice.prod')"],
    ["is_member('ETL') AND USER <> 'o''hara'", "is_member('etl_prod') AND USER <> 'ohara'"],
    // A literal that is no user or role (a label, a queue type) stays as written.
    [
      "query_label() = 'alice' OR query_type() IN ('etl')",
      "query_label() = 'alice' OR query_type() IN ('etl')",
    ],
  ])('%s', (from, to) => {
    expect(renameInCondition(from, map)).toBe(to);
  });
});

describe('applyNameMap', () => {
  it('renames user and role files, members and grantees; other kinds are untouched', () => {
    const defs: Definition[] = [
      { kind: 'user', path: ['alice'], fields: { email: 'a@example.com' } },
      { kind: 'role', path: ['etl'], fields: { members: { users: ['alice', 'bob'], roles: ['ETL'] } } },
      { kind: 'grant', path: ['Sales'], fields: { users: { alice: ['SELECT'], bob: ['ALTER'] } } },
      { kind: 'view', path: ['Sales', 'alice'], fields: { sql: "SELECT 'alice'" } },
    ];
    expect(applyNameMap(defs, map)).toEqual([
      { kind: 'user', path: ['alice.prod'], fields: { email: 'a@example.com' } },
      {
        kind: 'role',
        path: ['etl_prod'],
        fields: { members: { users: ['alice.prod', 'bob'], roles: ['etl_prod'] } },
      },
      { kind: 'grant', path: ['Sales'], fields: { users: { 'alice.prod': ['SELECT'], bob: ['ALTER'] } } },
      defs[3],
    ]);
  });

  it('tells the names of the map that no definition holds', () => {
    const m = readNameMap(mapFile('users:\n  Alice: a2\n  Carl: c2\nroles:\n  etl: e2\n  ops: o2\n'));
    applyNameMap(
      [
        { kind: 'user', path: ['alice'], fields: {} },
        { kind: 'rule', path: [], fields: { rules: [{ name: 'r', conditions: "is_member('ETL')" }] } },
      ],
      m,
    );
    expect(unusedNames(m)).toEqual(['user Carl', 'role ops']);
  });

  it('refuses a file that is not a map of users and roles', () => {
    for (const text of ['users: [alice]\n', 'groups:\n  a: b\n', 'roles:\n  etl: 3\n']) {
      expect(() => readNameMap(mapFile(text))).toThrow(UsageError);
    }
  });
});
