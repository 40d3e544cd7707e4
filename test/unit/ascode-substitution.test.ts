// The rule of `${env:NAME}` in definitions (src/ascode/substitution.ts): which variable a field may name, and
// that a secret is read only when apply writes it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Definition } from '../../src/ascode/definitions.js';
import {
  checkReferences,
  keepReferences,
  resolveSecrets,
  substituteEnv,
} from '../../src/ascode/substitution.js';
import { UsageError } from '../../src/errors.js';

const view = (sql: string): Definition => ({
  kind: 'view',
  path: ['S', 'v'],
  fields: { sql },
  file: 'S/v.yaml',
});
const source = (config: Record<string, unknown>): Definition => ({
  kind: 'source',
  path: ['pg'],
  fields: { type: 'POSTGRES', config },
  file: 'pg.yaml',
});

/** The message checkReferences refuses `def` with in `env`, or undefined when it allows it. */
function refusal(def: Definition, env: Record<string, string>): string | undefined {
  try {
    checkReferences([def], env);
    return undefined;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return err.message;
  }
}

describe('which variable a field may name', () => {
  it.each([
    ['DLAKE_TOKEN', {}],
    ['DLAKE_CLIENT_SECRET', { DLAKE_DEFS_ENV_ALLOW: 'DLAKE_CLIENT_SECRET' }],
    ['DLAKE_PASSWORD', { DLAKE_DEFS_ENV_ALLOW: '*' }],
    ['https_proxy', { DLAKE_DEFS_ENV_ALLOW: 'https_proxy' }],
    ['HTTP_PROXY', { DLAKE_DEFS_ENV_ALLOW: '*' }],
  ])("dlake's own %s: never, in any field, whatever is allowed", (name, env) => {
    expect(refusal(view(`SELECT '\${env:${name}}'`), env)).toContain("one of dlake's own settings");
    expect(refusal(source({ password: `\${env:${name}}` }), env)).toContain("one of dlake's own settings");
  });

  it("a source's secret field may name any other variable; its other fields only what is allowed", () => {
    expect(refusal(source({ password: `\${env:PG_PASSWORD}` }), {})).toBeUndefined();
    expect(refusal(source({ hostname: `\${env:PG_HOST}` }), {})).toBe(
      `pg.yaml: config.hostname names \${env:PG_HOST}, which only a source's secret fields may read unless DLAKE_DEFS_ENV_ALLOW allows it`,
    );
    expect(
      refusal(source({ hostname: `\${env:PG_HOST}` }), { DLAKE_DEFS_ENV_ALLOW: 'PG_HOST' }),
    ).toBeUndefined();
  });

  it.each([
    ['LAKE_ROOT', 'LAKE_*', true],
    ['LAKE_ROOT', '*', true],
    ['LAKE_ROOT', 'LAKE', false],
    ['LAKE_TOKEN', 'LAKE_*', false],
    ['LAKE_TOKEN', 'LAKE_TOKEN', true],
    ['AWS_SECRET_ACCESS_KEY', 'AWS_*', false],
    ['DB_PASSWD', '*', false],
    ['GH_API_KEY', 'GH_*', false],
    ['SCHEMA', 'PG_HOST, SCHEMA', true],
    ['SCHEMA', 'PG_HOST,LAKE_*', false],
  ])(
    '%s with DLAKE_DEFS_ENV_ALLOW=%s: allowed %s (a prefix never allows a credential-like name)',
    (name, allow, allowed) => {
      const found = refusal(view(`SELECT * FROM x.\${env:${name}}`), { DLAKE_DEFS_ENV_ALLOW: allow });
      expect(found === undefined).toBe(allowed);
    },
  );

  it('every refused reference is named, at any depth, by field; never a value', () => {
    const def: Definition = {
      kind: 'source',
      path: ['pg'],
      file: 'pg.yaml',
      fields: {
        type: 'POSTGRES',
        config: { hostname: `\${env:A}.\${env:B}`, propertyList: [{ name: 'x', value: `\${env:C}` }] },
      },
    };
    try {
      checkReferences([def], { A: 'a-value', B: 'b-value', C: 'c-value' });
      expect.unreachable();
    } catch (err) {
      const e = err as UsageError;
      expect([e.message, ...e.details]).toEqual([
        `pg.yaml: config.hostname names \${env:A}, which only a source's secret fields may read unless DLAKE_DEFS_ENV_ALLOW allows it`,
        `pg.yaml: config.hostname names \${env:B}, which only a source's secret fields may read unless DLAKE_DEFS_ENV_ALLOW allows it`,
        `pg.yaml: config.propertyList.0.value names \${env:C}, which only a source's secret fields may read unless DLAKE_DEFS_ENV_ALLOW allows it`,
      ]);
      expect(String(e.hint)).toContain('DLAKE_DEFS_ENV_ALLOW=A,B,C');
    }
  });
});

describe('substitution', () => {
  it('plan substitutes what is allowed and leaves a secret as its reference; apply reads the secret', () => {
    const def = source({ hostname: `\${env:PG_HOST}`, password: `\${env:PG_PASSWORD}` });
    const env = { PG_HOST: 'db', PG_PASSWORD: 'pw', DLAKE_DEFS_ENV_ALLOW: 'PG_HOST' };
    const planned = substituteEnv(def, env);
    expect(planned.fields.config).toEqual({ hostname: 'db', password: `\${env:PG_PASSWORD}` });
    expect(resolveSecrets(planned, env).config).toEqual({ hostname: 'db', password: 'pw' });
  });

  it('apply reads only secret fields: a reference elsewhere (a tampered saved plan) is sent as written', () => {
    const def = source({ hostname: `\${env:PG_HOST}`, password: `\${env:PG_PASSWORD}` });
    expect(resolveSecrets(def, { PG_HOST: 'db', PG_PASSWORD: 'pw' }).config).toEqual({
      hostname: `\${env:PG_HOST}`,
      password: 'pw',
    });
    expect(() => resolveSecrets(source({ password: `\${env:DLAKE_TOKEN}` }), { DLAKE_TOKEN: 't' })).toThrow(
      "one of dlake's own settings",
    );
  });

  it('substituteEnv itself refuses what the rule refuses, even when called alone', () => {
    expect(() => substituteEnv(view(`SELECT '\${env:DLAKE_TOKEN}'`), { DLAKE_TOKEN: 't' })).toThrow(
      "one of dlake's own settings",
    );
  });
});

describe('`$$` before `{env:NAME}`: the reference text as it is (data, such as SQL that holds it)', () => {
  it('is no reference: nothing is read or refused, and the plan compares the text without its escape', () => {
    const def = view(`SELECT '$\${env:DLAKE_TOKEN}' AS literal, '\${env:LAKE_REGION}' AS region`);
    expect(refusal(def, { DLAKE_DEFS_ENV_ALLOW: 'LAKE_REGION' })).toBeUndefined();
    const env = { DLAKE_DEFS_ENV_ALLOW: 'LAKE_REGION', LAKE_REGION: 'eu', DLAKE_TOKEN: 'tok-secret-1' };
    expect(substituteEnv(def, env).fields.sql).toBe(
      `SELECT '\${env:DLAKE_TOKEN}' AS literal, 'eu' AS region`,
    );
  });

  it('pull writes the reference text that a view holds escaped, so that plan reads back what the service has', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dlake-escape-'));
    try {
      const pulled = view(`SELECT '\${env:HOME}' AS literal`);
      const [written] = keepReferences(dir, [pulled], {});
      expect(written!.fields.sql).toBe(`SELECT '$\${env:HOME}' AS literal`);
      // Read back and planned: the service's text again, no variable read.
      expect(substituteEnv({ ...written!, file: 'S/v.yaml' }, { HOME: '/root' }).fields.sql).toBe(
        `SELECT '\${env:HOME}' AS literal`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a source's secret pulled as a reference stays one", () => {
    const dir = mkdtempSync(join(tmpdir(), 'dlake-escape-'));
    try {
      const [written] = keepReferences(dir, [source({ hostname: 'h', password: `\${env:PG_PASSWORD}` })], {});
      expect((written!.fields.config as Record<string, unknown>).password).toBe(`\${env:PG_PASSWORD}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
