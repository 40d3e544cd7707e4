// Redaction of secrets for --debug traces and --dry-run output. Over-redaction is harmless; a leak is not.

export const REDACTED = '[redacted]';

/** Keys whose values are secrets wherever they appear (request bodies, forms, source configs). */
const SECRET_KEY =
  /^(password|passwd|secret|token|access_token|refresh_token|id_token|subject_token|actor_token|client_secret|clientsecret|accesssecret|accesskey|clientkeypassword|privatekey|authorization|pat|apikey|api_key)$/i;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** A deep copy of `value` with every secret-named field's value replaced. */
export function redactJson(value: unknown, extraKeys: readonly string[] = []): unknown {
  const extra = new Set(extraKeys.map((k) => k.toLowerCase()));
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.entries(v).map(([k, inner]) =>
          isSecretKey(k) || extra.has(k.toLowerCase()) ? [k, inner === '' ? '' : REDACTED] : [k, walk(inner)],
        ),
      );
    }
    return v;
  };
  return walk(value);
}

export function redactForm(form: Record<string, string>): Record<string, string> {
  return redactJson(form) as Record<string, string>;
}

/** Header values safe to print: Authorization, cookies and API keys are hidden. */
export function redactHeader(name: string, value: string): string {
  return /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key)$/i.test(name) ? REDACTED : value;
}

/**
 * Text with the user name and password of every URL in it masked (`http://user:pw@host` → `http://***@host`):
 * the one way a URL given by the user (`--url`, `DLAKE_URL`, a hand-edited profile) is shown in output, errors
 * and `--debug`. The authority ends at the first `/`, `?`, `#` or space; its last `@` ends the userinfo, as URL
 * parsers read it.
 */
export function redactUrl(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/?#\s]*@/gi, '$1***@');
}
