// The command line's words for what the API layer advises (docs/architecture.md, "Errors and hints"): src/api
// says which case an error is (an Advice, checked in the API's own tests); src/output/hints.ts words it as the
// `hint:` line, naming dlake commands and options.
import { describe, expect, it } from 'vitest';
import { entityByPath } from '../../src/api/catalog.js';
import { errorFromResponse } from '../../src/api/errors.js';
import { AuthError, ServiceError, UsageError } from '../../src/errors.js';
import { hintFor } from '../../src/output/hints.js';

const ID = '2f067496-7cf0-a70e-0222-34d53a5dc800';

describe('hints', () => {
  it('token-endpoint refusals get a hint that fits: client secret, expired JWT, no external provider', () => {
    // The advice src/api gives each refusal (test/unit/http.test.ts), worded three different ways.
    const hint = (kind: 'wrong-client-secret' | 'jwt-expired' | 'no-external-token-provider') =>
      hintFor(new AuthError('refused', { hint: { kind } }));
    expect(hint('wrong-client-secret')).toMatch(/client id or its secret/);
    expect(hint('jwt-expired')).toMatch(/JWT has expired/);
    expect(hint('no-external-token-provider')).toMatch(/trusts no external identity provider/);
    const hints = new Set(
      (['wrong-client-secret', 'jwt-expired', 'no-external-token-provider'] as const).map(hint),
    );
    expect(hints.size).toBe(3);
  });

  it('a missing catalog entity: where to look, with the parent quoted for the shell', () => {
    const err = errorFromResponse({
      status: 404,
      endpoint: 'GET /api/v3/catalog/by-path/Sales/a%2Fb/x',
      target: entityByPath(['Sales', 'a/b', 'x']),
      contentType: 'application/json',
      text: JSON.stringify({ errorMessage: 'Could not find entity', moreInfo: '' }),
    });
    expect(hintFor(err)).toBe(`see what Sales/"a/b" holds with: dlake catalog ls 'Sales/"a/b"'`);
  });

  it('names the command or option that is the next step', () => {
    expect(hintFor(new AuthError('x', { hint: { kind: 'log-in-again' } }))).toMatch(/dlake login/);
    expect(hintFor(new AuthError('x', { hint: { kind: 'log-in-again' } }), { profile: 'prod' })).toMatch(
      /`dlake login -p prod`/,
    );
    expect(
      hintFor(new AuthError('x', { hint: { kind: 'log-in-again' } }), {
        profile: 'prod',
        url: 'https://lake.example.com/',
      }),
    ).toMatch(/`dlake login -p prod --url https:\/\/lake.example.com`/);
    expect(hintFor(new ServiceError('x', { hint: { kind: 'timed-out' } }))).toMatch(/--timeout/);
    expect(hintFor(new UsageError('x', { hint: { kind: 'job-not-ended', id: ID } }))).toContain(
      `dlake job wait ${ID}`,
    );
    expect(hintFor(new ServiceError('x', { hint: { kind: 'job-still-running', id: ID } }))).toContain(
      `dlake job cancel ${ID}`,
    );
    expect(hintFor(new UsageError('x', { hint: { kind: 'source-types', type: 'POSTGRES' } }))).toMatch(
      /dlake source types POSTGRES/,
    );
    // Words are printed as they are.
    expect(hintFor(new UsageError('x', { hint: 'h' }))).toBe('h');
    expect(hintFor(new UsageError('x'))).toBeUndefined();
  });
});
