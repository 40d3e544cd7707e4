// The pure halves of `user update` and `queue update`: change only what was given, keep the rest (roles
// and PUBLIC for users; every field, unknown ones too, for a queue's full-replace PUT).
import { describe, expect, it } from 'vitest';
import { checkNewPat, MAX_PAT_LIFETIME_MS } from '../../src/api/pats.js';
import { mergeQueue, newQueueBody, rulesPlacingIn } from '../../src/api/queues.js';
import type { Queue, RoleRef, User } from '../../src/api/schemas/admin.js';
import { checkRoleChanges, hasChanges, mergeUser, newUserBody, rolesToLookUp } from '../../src/api/users.js';
import { UsageError } from '../../src/errors.js';

const PUBLIC: RoleRef = { id: 'r-public', name: 'PUBLIC', type: 'SYSTEM' };
const ADMIN: RoleRef = { id: 'r-admin', name: 'ADMIN', type: 'SYSTEM' };
const ANALYSTS: RoleRef = { id: 'r-analysts', name: 'analysts', type: 'INTERNAL' };
const LOADERS: RoleRef = { id: 'r-loaders', name: 'loaders', type: 'INTERNAL' };

const bob = (extra: Partial<User> = {}): User => ({
  '@type': 'EnterpriseUser',
  id: 'u-1',
  name: 'bob',
  firstName: 'Bob',
  lastName: 'Baker',
  email: 'bob@example.com',
  tag: 'T1',
  roles: [PUBLIC, ANALYSTS],
  source: 'local',
  active: true,
  ...extra,
});

describe('mergeUser', () => {
  it('changes only the given fields and sends the tag, id and name just read', () => {
    const { body, changed } = mergeUser(bob(), { email: 'bob@new.example.com' });
    expect(body).toEqual({
      id: 'u-1',
      tag: 'T1',
      name: 'bob',
      firstName: 'Bob',
      lastName: 'Baker',
      email: 'bob@new.example.com',
      roles: [PUBLIC, ANALYSTS],
    });
    expect(changed).toEqual(['email']);
  });

  it('keeps the other roles when one is added or removed, PUBLIC always first and kept', () => {
    const { body, changed } = mergeUser(
      bob({ roles: [PUBLIC, ANALYSTS, LOADERS] }),
      { addRoles: ['ADMIN'], removeRoles: ['LOADERS'] },
      [ADMIN],
    );
    expect(body.roles).toEqual([PUBLIC, ANALYSTS, ADMIN]);
    expect(changed).toEqual(['-role LOADERS', '+role ADMIN']);
  });

  it('re-adds PUBLIC when the user came without it (looked up like any other role)', () => {
    const user = bob({ roles: [ANALYSTS] });
    expect(rolesToLookUp(user, { addRoles: ['loaders'] })).toEqual(['loaders', 'PUBLIC']);
    const { body } = mergeUser(user, { addRoles: ['loaders'] }, [LOADERS, PUBLIC]);
    expect(body.roles).toEqual([PUBLIC, ANALYSTS, LOADERS]);
  });

  it('reports roles already held or not held, without changing anything', () => {
    const user = bob();
    expect(rolesToLookUp(user, { addRoles: ['Analysts'] })).toEqual([]);
    const merged = mergeUser(user, { addRoles: ['Analysts'], removeRoles: ['loaders'] });
    expect(merged.changed).toEqual([]);
    expect(merged.unchanged).toEqual(['does not have role "loaders"', 'already has role "Analysts"']);
    expect(merged.body.roles).toEqual([PUBLIC, ANALYSTS]);
  });

  it('counts a field set to its current value as no change', () => {
    expect(mergeUser(bob(), { firstName: 'Bob' }).changed).toEqual([]);
  });

  it('sends no roles for a user without any (the community edition has none)', () => {
    const { body } = mergeUser(bob({ roles: undefined, '@type': 'User' }), { lastName: 'B.' });
    expect(body).not.toHaveProperty('roles');
    expect(body.lastName).toBe('B.');
  });

  it('keeps only the documented fields of the PUT body (no @type, source, active)', () => {
    const { body } = mergeUser(bob({ identityType: 'REGULAR_USER' }), { firstName: 'Rob' });
    expect(Object.keys(body).sort()).toEqual([
      'email',
      'firstName',
      'id',
      'lastName',
      'name',
      'roles',
      'tag',
    ]);
  });
});

describe('role flags', () => {
  it('refuses removing PUBLIC and a role both added and removed', () => {
    expect(() => checkRoleChanges({ removeRoles: ['public'] })).toThrow(UsageError);
    expect(() => checkRoleChanges({ addRoles: ['a'], removeRoles: ['A'] })).toThrow(/both added and removed/);
    expect(() => checkRoleChanges({ addRoles: ['a'], removeRoles: ['b'] })).not.toThrow();
  });

  it('knows when nothing was asked for', () => {
    expect(hasChanges({ addRoles: [], removeRoles: [] })).toBe(false);
    expect(hasChanges({ email: '' })).toBe(true);
  });

  it('puts PUBLIC first in a new user, each role once', () => {
    const body = newUserBody({ name: 'carol', email: 'c@example.com' }, [ANALYSTS, PUBLIC, ANALYSTS]);
    expect(body).toEqual({ name: 'carol', email: 'c@example.com', roles: [PUBLIC, ANALYSTS] });
  });
});

const etl = (extra: Partial<Queue> = {}): Queue => ({
  id: 'q-1',
  tag: '3',
  name: 'etl',
  cpuTier: 'HIGH',
  maxMemoryPerNodeBytes: 8 * 1024 ** 3,
  maxRunTimeoutMs: 900_000,
  ...extra,
});

describe('mergeQueue', () => {
  it('replaces the whole queue: current fields kept, given ones changed, tag unchanged', () => {
    const { body, changed } = mergeQueue(etl({ engineId: 'e-9' }), {
      maxRunTimeoutMs: 1_800_000,
      maxAllowedRunningJobs: 4,
    });
    expect(body).toEqual({
      id: 'q-1',
      tag: '3',
      name: 'etl',
      cpuTier: 'HIGH',
      maxMemoryPerNodeBytes: 8 * 1024 ** 3,
      maxRunTimeoutMs: 1_800_000,
      maxAllowedRunningJobs: 4,
      engineId: 'e-9',
    });
    expect(changed).toEqual(['maxAllowedRunningJobs', 'maxRunTimeoutMs']);
  });

  it('renames, and treats values equal to the current ones as no change', () => {
    expect(mergeQueue(etl(), { name: 'etl-2', cpuTier: 'HIGH' }).changed).toEqual(['name']);
    expect(mergeQueue(etl(), {}).changed).toEqual([]);
  });

  it('builds a creation body from the given fields only, and needs a name', () => {
    expect(newQueueBody({ name: 'adhoc', maxAllowedRunningJobs: 2, cpuTier: undefined })).toEqual({
      name: 'adhoc',
      maxAllowedRunningJobs: 2,
    });
    expect(() => newQueueBody({ name: ' ' })).toThrow(UsageError);
  });

  it('names the rules that place jobs in a queue', () => {
    const ruleset = {
      rules: [
        { name: 'etl jobs', acceptId: 'q-1' },
        { name: 'other', acceptId: 'q-2' },
      ],
      defaultRule: { name: 'All Other Queries', acceptId: 'q-1' },
    };
    expect(rulesPlacingIn(ruleset, 'q-1')).toEqual(['etl jobs', 'All Other Queries']);
  });
});

describe('PAT lifetimes', () => {
  it('accepts 1 minute to 180 days and refuses the rest before any request', () => {
    expect(() => checkNewPat({ label: 'ci', millisecondsToExpire: MAX_PAT_LIFETIME_MS })).not.toThrow();
    expect(() => checkNewPat({ label: 'ci', millisecondsToExpire: 60_000 })).not.toThrow();
    expect(() => checkNewPat({ label: 'ci', millisecondsToExpire: MAX_PAT_LIFETIME_MS + 1 })).toThrow(
      /at most 180d/,
    );
    expect(() => checkNewPat({ label: 'ci', millisecondsToExpire: 59_999 })).toThrow(/too short/);
    expect(() => checkNewPat({ label: '  ', millisecondsToExpire: 60_000 })).toThrow(/label is empty/);
  });
});
