import { describe, expect, it } from 'vitest';
import { requireUrl, resolveSettings } from '../../src/auth/settings.js';
import { ConfigFileSchema, CredentialsFileSchema } from '../../src/config/schema.js';
import type { StoreSnapshot } from '../../src/config/store.js';
import { UsageError } from '../../src/errors.js';

function snapshot(config: unknown = {}, tokens: Record<string, unknown> = {}): StoreSnapshot {
  return { config: ConfigFileSchema.parse(config), credentials: CredentialsFileSchema.parse({ tokens }) };
}

const stored = {
  currentProfile: 'dev',
  profiles: {
    dev: { url: 'http://dev', output: 'json' },
    prod: { url: 'http://prod', authUrl: 'http://idp' },
  },
};
const prodToken = { prod: { kind: 'bearer', token: 'x', obtainedVia: 'pat' } };

describe('settings precedence: flag > environment > profile > default', () => {
  it('uses the current profile, else "default"', () => {
    expect(resolveSettings({}, {}, snapshot(stored)).profileName).toEqual({
      value: 'dev',
      source: 'profile',
    });
    expect(resolveSettings({}, {}, snapshot()).profileName).toEqual({ value: 'default', source: 'default' });
  });

  it('lets DLAKE_PROFILE choose the profile, and --profile beat it', () => {
    const env = { DLAKE_PROFILE: 'prod' };
    expect(resolveSettings({}, env, snapshot(stored)).profileName.value).toBe('prod');
    expect(resolveSettings({ profile: 'dev' }, env, snapshot(stored)).profileName.value).toBe('dev');
  });

  it('takes the URL from the flag, then the environment, then the profile', () => {
    const s = snapshot(stored);
    expect(resolveSettings({ url: 'http://flag' }, { DLAKE_URL: 'http://env' }, s).url).toEqual({
      value: 'http://flag',
      source: 'flag',
    });
    expect(resolveSettings({}, { DLAKE_URL: 'http://env' }, s).url).toMatchObject({
      value: 'http://env',
      source: 'environment',
    });
    expect(resolveSettings({}, {}, s).url).toEqual({ value: 'http://dev', source: 'profile' });
  });

  it('lets an explicit --profile win over DLAKE_URL and DLAKE_TOKEN, and says which were ignored', () => {
    const env = { DLAKE_URL: 'http://env', DLAKE_TOKEN: 'envtok', DLAKE_AUTH_URL: 'http://envidp' };
    const s = resolveSettings({ profile: 'prod' }, env, snapshot(stored, prodToken));
    expect(s.url).toEqual({ value: 'http://prod', source: 'profile' });
    expect(s.authUrl).toEqual({ value: 'http://idp', source: 'profile' });
    expect(s.envToken).toBeUndefined();
    expect(s.ignoredEnv.sort()).toEqual(['DLAKE_AUTH_URL', 'DLAKE_TOKEN', 'DLAKE_URL']);
  });

  it('names no ignored value when the environment says the same as the profile', () => {
    const env = { DLAKE_URL: 'HTTP://PROD/', DLAKE_AUTH_URL: 'http://idp', DLAKE_TOKEN: 'x' };
    const s = resolveSettings({ profile: 'prod' }, env, snapshot(stored, prodToken));
    expect(s.url).toEqual({ value: 'http://prod', source: 'profile' });
    expect(s.ignoredEnv).toEqual([]);
  });

  it('does not apply the exception to a profile chosen by DLAKE_PROFILE', () => {
    const env = { DLAKE_PROFILE: 'prod', DLAKE_URL: 'http://env', DLAKE_TOKEN: 'envtok' };
    const s = resolveSettings({}, env, snapshot(stored, prodToken));
    expect(s.url?.value).toBe('http://env');
    expect(s.envToken).toBe('envtok');
    expect(s.ignoredEnv).toEqual([]);
  });

  it('keeps DLAKE_TOKEN when the explicit profile has no stored credentials', () => {
    const s = resolveSettings({ profile: 'prod' }, { DLAKE_TOKEN: 'envtok' }, snapshot(stored));
    expect(s.envToken).toBe('envtok');
  });

  it('takes the output format from the profile, with table as the default', () => {
    expect(resolveSettings({}, {}, snapshot(stored)).output).toEqual({ value: 'json', source: 'profile' });
    expect(resolveSettings({ profile: 'prod' }, {}, snapshot(stored)).output).toEqual({
      value: 'table',
      source: 'default',
    });
  });

  it('refuses an unknown profile unless the command creates it', () => {
    expect(() => resolveSettings({ profile: 'nope' }, {}, snapshot(stored))).toThrow(UsageError);
    expect(() => resolveSettings({}, { DLAKE_PROFILE: 'nope' }, snapshot(stored))).toThrow(
      /unknown profile "nope"/,
    );
    expect(
      resolveSettings({ profile: 'nope' }, {}, snapshot(stored), { allowNewProfile: true }).profile,
    ).toBeUndefined();
  });

  it('explains how to set a URL when there is none', () => {
    const s = resolveSettings({}, {}, snapshot());
    expect(() => requireUrl(s)).toThrow(UsageError);
    try {
      requireUrl(s);
    } catch (e) {
      expect((e as UsageError).hint).toMatch(/--url.*DLAKE_URL/);
    }
  });

  it('reads client credentials from the environment only as a pair', () => {
    expect(resolveSettings({}, { DLAKE_CLIENT_ID: 'a' }, snapshot()).envClientCredentials).toBeUndefined();
    expect(
      resolveSettings({}, { DLAKE_CLIENT_ID: 'a', DLAKE_CLIENT_SECRET: 'b' }, snapshot())
        .envClientCredentials,
    ).toEqual({
      clientId: 'a',
      clientSecret: 'b',
    });
  });
});
