// The rules of `access why` (src/api/access.ts), without a server: principal parsing, the containers above an
// entity, and which grant gives which privilege (nearest first, ALL, ADMIN, the owner).
import { describe, expect, it } from 'vitest';
import { ancestorPaths, explain, parsePrincipal } from '../../src/api/access.js';

const offered = ['SELECT', 'ALTER', 'MANAGE_GRANTS'];
const level = (path: string[], grants: Array<[string, string, string, string[]]>) => ({
  path,
  grants: {
    availablePrivileges: offered,
    grants: grants.map(([granteeType, id, name, privileges]) => ({ granteeType, id, name, privileges })),
  },
});
const bob = { kind: 'user' as const, id: 'u-bob', name: 'bob' };
const roles = [
  { id: 'r-public', name: 'PUBLIC' },
  { id: 'r-team', name: 'team' },
  { id: 'r-analysts', name: 'analysts', via: 'team' },
];

describe('access why: the rules', () => {
  it('reads user:, role: (any case) and bare names; a name may hold colons', () => {
    expect(parsePrincipal('bob')).toEqual({ kind: 'user', name: 'bob' });
    expect(parsePrincipal('ROLE:a:b')).toEqual({ kind: 'role', name: 'a:b' });
    expect(parsePrincipal('team:x')).toEqual({ kind: 'user', name: 'team:x' });
  });

  it('lists the containers above an entity, nearest first', () => {
    expect(ancestorPaths(['a', 'b', 'c'])).toEqual([['a', 'b'], ['a']]);
    expect(ancestorPaths(['a'])).toEqual([]);
  });

  it('names the nearest grant for each privilege, through roles held; others are missing', () => {
    const e = explain(bob, roles, [
      level(['S', 'f', 'd'], [['USER', 'u-bob', 'bob', ['ALTER']]]),
      level(['S', 'f'], [['ROLE', 'r-other', 'other', ['MANAGE_GRANTS']]]),
      level(
        ['S'],
        [
          ['ROLE', 'r-analysts', 'analysts', ['SELECT', 'ALTER']],
          ['USER', 'u-carol', 'carol', ['MANAGE_GRANTS']],
        ],
      ),
    ]);
    expect(e.privileges).toEqual([
      { privilege: 'SELECT', via: { grantee: 'role:analysts', on: ['S'] } },
      { privilege: 'ALTER', via: { grantee: 'user:bob', on: ['S', 'f', 'd'] } },
    ]);
    expect(e.missing).toEqual(['MANAGE_GRANTS']);
  });

  it('ALL gives every privilege offered; ADMIN and the owner hold everything implicitly', () => {
    const all = explain(bob, roles, [level(['S'], [['ROLE', 'r-public', 'PUBLIC', ['ALL']]])]);
    expect(all.missing).toEqual([]);
    const admin = explain(bob, [...roles, { id: 'r-admin', name: 'ADMIN' }], [level(['S'], [])]);
    expect(admin.privileges.map((p) => `${p.privilege}:${p.via.implicit}`)).toEqual([
      'SELECT:admin',
      'ALTER:admin',
      'MANAGE_GRANTS:admin',
      'ALL:admin',
    ]);
    expect(admin.missing).toEqual([]);
    const owned = explain(bob, roles, [level(['S'], [])], { id: 'r-team', type: 'ROLE' });
    expect(owned.privileges[0]!.via).toEqual({ grantee: 'role:team', on: ['S'], implicit: 'owner' });
    // A grant to another user of the same name is not bob's: grants are matched by id.
    const other = explain(bob, roles, [level(['S'], [['USER', 'u-bob2', 'bob', ['SELECT']]])]);
    expect(other.privileges).toEqual([]);
  });

  it('a role principal holds its own grants, not those of users', () => {
    const team = { kind: 'role' as const, id: 'r-team', name: 'team' };
    const e = explain(
      team,
      [],
      [
        level(
          ['S'],
          [
            ['ROLE', 'r-team', 'team', ['SELECT']],
            ['USER', 'r-team', 'x', ['ALTER']],
          ],
        ),
      ],
    );
    expect(e.privileges.map((p) => p.privilege)).toEqual(['SELECT']);
  });
});
