// The emulator's shared state: users, issued tokens and the clock. Area modules (catalog, jobs, queues…)
// keep their own state beside this one and reach users and tokens through it.
import { randomBytes, randomUUID } from 'node:crypto';

export interface EmuUser {
  id: string;
  name: string;
  password?: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  admin: boolean;
  /** Role names besides PUBLIC (ADMIN for admins). */
  roles: string[];
  tag: string;
  source: 'local' | 'external';
  active: boolean;
  identityType: 'REGULAR_USER' | 'SERVICE_USER';
  /** Service users: OAuth client credentials. */
  clientId?: string;
  clientSecret?: string;
  createdAt: number;
}

export interface IssuedToken {
  token: string;
  userId: string;
  kind: 'session' | 'pat' | 'oauth';
  expiresAt: number;
  /** PATs: their record fields. */
  patId?: string;
  label?: string;
  createdAt: number;
}

export interface SeedUser {
  name: string;
  password?: string;
  admin?: boolean;
  firstName?: string;
  lastName?: string;
  email?: string;
  /** Makes a service user with these OAuth client credentials. */
  clientId?: string;
  clientSecret?: string;
}

/** Users every emulator starts with, so tests and the demo can log in. */
export const DEFAULT_USERS: SeedUser[] = [
  {
    name: 'admin',
    password: 'admin-pass-1',
    admin: true,
    firstName: 'Ada',
    lastName: 'Admin',
    email: 'admin@example.com',
  },
  {
    name: 'analyst',
    password: 'analyst-pass-1',
    firstName: 'Alan',
    lastName: 'Lyst',
    email: 'analyst@example.com',
  },
  { name: 'svc-ci', clientId: 'ci-client', clientSecret: 'ci-client-secret-1' },
];

export const newTag = (): string => randomBytes(8).toString('base64');

export class EmuState {
  readonly users = new Map<string, EmuUser>();
  readonly tokens = new Map<string, IssuedToken>();
  /** Added to Date.now(): tests move the clock to expire tokens. */
  clockOffsetMs = 0;

  constructor(seed: SeedUser[]) {
    for (const u of seed) this.addUser(u);
  }

  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  addUser(seed: SeedUser): EmuUser {
    const user: EmuUser = {
      id: randomUUID(),
      name: seed.name,
      password: seed.password,
      firstName: seed.firstName,
      lastName: seed.lastName,
      email: seed.email,
      admin: seed.admin ?? false,
      roles: seed.admin ? ['ADMIN'] : [],
      tag: newTag(),
      source: 'local',
      active: true,
      identityType: seed.clientId ? 'SERVICE_USER' : 'REGULAR_USER',
      clientId: seed.clientId,
      clientSecret: seed.clientSecret,
      createdAt: this.now(),
    };
    this.users.set(user.id, user);
    return user;
  }

  userByName(name: string): EmuUser | undefined {
    const lower = name.toLowerCase();
    for (const u of this.users.values()) if (u.name.toLowerCase() === lower) return u;
    return undefined;
  }

  issueToken(
    userId: string,
    kind: IssuedToken['kind'],
    lifetimeMs: number,
    extra: Partial<IssuedToken> = {},
  ): IssuedToken {
    const token = randomBytes(24).toString('base64url');
    const issued: IssuedToken = {
      token,
      userId,
      kind,
      expiresAt: this.now() + lifetimeMs,
      createdAt: this.now(),
      ...extra,
    };
    this.tokens.set(token, issued);
    return issued;
  }

  /** A live token and its user, or undefined when unknown, expired or its user is gone. */
  lookupToken(token: string): { issued: IssuedToken; user: EmuUser } | undefined {
    const issued = this.tokens.get(token);
    if (!issued || issued.expiresAt <= this.now()) return undefined;
    const user = this.users.get(issued.userId);
    return user?.active ? { issued, user } : undefined;
  }
}
