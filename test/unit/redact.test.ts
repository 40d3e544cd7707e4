import { describe, expect, it } from 'vitest';
import { REDACTED, redactForm, redactHeader, redactJson } from '../../src/util/redact.js';

describe('redaction', () => {
  it('hides secrets at any depth and keeps everything else', () => {
    const body = {
      userName: 'alice',
      password: 'hunter2',
      config: { hostname: 'db', password: 'pw', accessSecret: 's3', nested: [{ clientSecret: 'cs' }] },
    };
    expect(redactJson(body)).toEqual({
      userName: 'alice',
      password: REDACTED,
      config: {
        hostname: 'db',
        password: REDACTED,
        accessSecret: REDACTED,
        nested: [{ clientSecret: REDACTED }],
      },
    });
    expect(body.password).toBe('hunter2');
  });

  it('hides extra fields named by the caller (a source type secret)', () => {
    expect(redactJson({ config: { zkSecret: 'x' } }, ['zkSecret'])).toEqual({
      config: { zkSecret: REDACTED },
    });
  });

  it('hides the secrets of token requests', () => {
    const form = redactForm({
      grant_type: 'client_credentials',
      client_id: 'ci',
      client_secret: 'sec',
      subject_token: 'jwt',
    });
    expect(form).toEqual({
      grant_type: 'client_credentials',
      client_id: 'ci',
      client_secret: REDACTED,
      subject_token: REDACTED,
    });
  });

  it('hides Authorization headers whatever their case', () => {
    expect(redactHeader('Authorization', 'Bearer abc')).toBe(REDACTED);
    expect(redactHeader('authorization', '_serviceabc')).toBe(REDACTED);
    expect(redactHeader('content-type', 'application/json')).toBe('application/json');
  });
});
