import { describe, expect, it } from 'vitest';
import { REDACTED, redactForm, redactHeader, redactJson, redactUrl } from '../../src/util/redact.js';

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

  it('masks the user name and password of every URL in a text, up to the last @ of the authority', () => {
    expect(redactUrl('http://user:PW@host:9047/x')).toBe('http://***@host:9047/x');
    expect(redactUrl('see https://a@b:P@W@h.example and ftp://t0ken@x')).toBe(
      'see https://***@h.example and ftp://***@x',
    );
    // An @ in the path, query or after a space is not userinfo; a URL without any is unchanged.
    expect(redactUrl('http://h.example/@home?u=a@b')).toBe('http://h.example/@home?u=a@b');
    expect(redactUrl('http://h.example me@mail')).toBe('http://h.example me@mail');
  });
});
