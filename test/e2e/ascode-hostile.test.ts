// Definitions that try to make dlake reveal a credential, and saved plans that were tampered with: both are
// refused with exit 2 and one error line, before anything is sent, and no value shows anywhere
// (docs/definitions-as-code.md, "Environment references" and "Saved plans").
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, tree } from '../helpers/ascode.js';
import type { RunResult } from '../helpers/dlake.js';
import { expectFailure, useFixture } from '../helpers/fixture.js';

let tmp: string;

const writes = () => fx.emu.log.entries.filter((e) => e.method !== 'GET');

/** A folder of definition files: each entry a file under `dir` and its text. */
function folder(name: string, files: Record<string, string>): string {
  const dir = join(tmp, name);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

const fx = useFixture();
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'dlake-hostile-'));
  ok(await fx.run(['apply', '--dir', folder('seed', { 'Sales.yaml': 'kind: space\npath: [Sales]\n' })]));
});
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
});

describe('a definitions change cannot make dlake reveal a credential', () => {
  // What a CI job has in its environment: dlake's own credential and a source's password.
  const CLIENT_SECRET = 'ci-Client-Secret-7Qx2';
  const PG_PASSWORD = 'pg-Password-Lw93';
  const env = { DLAKE_CLIENT_SECRET: CLIENT_SECRET, PG_PASSWORD };
  const values = [CLIENT_SECRET, PG_PASSWORD];
  let lake: string;
  beforeAll(() => {
    lake = folder('exfil', {
      'Sales.yaml': 'kind: space\npath: [Sales]\n',
      'Sales/leak.yaml': `kind: view\npath: [Sales, leak]\nsql: SELECT '\${env:DLAKE_CLIENT_SECRET}' AS cs, '\${env:PG_PASSWORD}' AS pg\n`,
    });
  });

  /** No value in the run's output, nothing written to the service. */
  const revealsNothing = (r: RunResult) => {
    for (const v of values) expect(r.stdout + r.stderr).not.toContain(v);
    expect(writes()).toEqual([]);
    expect(fx.emu.catalog.store.at(['Sales', 'leak'])).toBeUndefined();
  };

  it('plan refuses the file, naming the file, the field and the variable, and asks the service nothing', async () => {
    const r = await fx.run(['plan', '--dir', lake], { env });
    expectFailure(
      r,
      2,
      `error: Sales/leak.yaml: sql names \${env:DLAKE_CLIENT_SECRET}, which is one of dlake's own settings, never read by a definition`,
    );
    // The other reference is listed too (a detail line), by name only.
    expect(r.stderr).toContain(`Sales/leak.yaml: sql names \${env:PG_PASSWORD}`);
    revealsNothing(r);
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('plan --out saves nothing', async () => {
    const out = join(tmp, 'exfil-plan.json');
    const r = await fx.run(['plan', '--dir', lake, '--out', out], { env });
    expectFailure(r, 2, `sql names \${env:DLAKE_CLIENT_SECRET}`);
    expect(existsSync(out)).toBe(false);
    revealsNothing(r);
  });

  it('apply --debug prints and sends nothing; a pull after it writes no value', async () => {
    const r = await fx.run(['apply', '--dir', lake, '--debug'], { env });
    expectFailure(r, 2, `sql names \${env:DLAKE_CLIENT_SECRET}`);
    revealsNothing(r);
    const pulled = join(tmp, 'exfil-pulled');
    ok(await fx.run(['pull', '--dir', pulled], { env }));
    const files = tree(pulled);
    expect(Object.keys(files)).toContain('Sales.yaml');
    for (const v of values) for (const text of Object.values(files)) expect(text).not.toContain(v);
  });

  it('the built bundle, as CI runs it, refuses the same way', async () => {
    const r = await fx.spawn(['apply', '--dir', lake, '--debug', '--yes'], { env });
    expectFailure(r, 2, `sql names \${env:DLAKE_CLIENT_SECRET}`);
    revealsNothing(r);
  });

  it('allowing the variables does not allow dlake’s own, nor a credential-like name by a prefix', async () => {
    const own = await fx.run(['plan', '--dir', lake], {
      env: { ...env, DLAKE_DEFS_ENV_ALLOW: 'DLAKE_CLIENT_SECRET,PG_PASSWORD' },
    });
    expectFailure(own, 2, `\${env:DLAKE_CLIENT_SECRET}, which is one of dlake's own settings`);
    revealsNothing(own);

    const pg = folder('exfil-pg', {
      'Sales/leak.yaml': `kind: view\npath: [Sales, leak]\nsql: SELECT '\${env:PG_PASSWORD}' AS pg\n`,
    });
    const prefixed = await fx.run(['plan', '--dir', pg], { env: { ...env, DLAKE_DEFS_ENV_ALLOW: 'PG_*' } });
    expectFailure(
      prefixed,
      2,
      `Sales/leak.yaml: sql names \${env:PG_PASSWORD}, which looks like a credential: DLAKE_DEFS_ENV_ALLOW allows it only by its whole name`,
    );
    revealsNothing(prefixed);
    const unallowed = await fx.run(['plan', '--dir', pg], { env });
    expectFailure(unallowed, 2, "which only a source's secret fields may read unless DLAKE_DEFS_ENV_ALLOW");
    expect(unallowed.stderr).toContain('hint: ');
    expect(unallowed.stderr).toContain('DLAKE_DEFS_ENV_ALLOW=PG_PASSWORD');
    revealsNothing(unallowed);
  });

  it("a source's secret field may name a variable, but never one of dlake's own", async () => {
    const src = folder('exfil-source', {
      'pg.yaml':
        'kind: source\npath: [pg]\ntype: POSTGRES\nconfig:\n  hostname: db.example.com\n  port: 5432\n' +
        `  databaseName: sales\n  authenticationType: MASTER\n  username: etl\n  password: \${env:DLAKE_CLIENT_SECRET}\n`,
    });
    const r = await fx.run(['apply', '--dir', src, '--debug'], { env });
    expectFailure(
      r,
      2,
      `pg.yaml: config.password names \${env:DLAKE_CLIENT_SECRET}, which is one of dlake's own`,
    );
    revealsNothing(r);
    expect(fx.emu.catalog.store.at(['pg'])).toBeUndefined();

    // Its own variable: sent to the service, shown nowhere (plan, saved plan, --debug, the pulled file).
    writeFileSync(
      join(src, 'pg.yaml'),
      readFileSync(join(src, 'pg.yaml'), 'utf8').replace('DLAKE_CLIENT_SECRET', 'PG_PASSWORD'),
    );
    const saved = join(tmp, 'source-plan.json');
    const runs = [
      ok(await fx.run(['plan', '--dir', src, '--out', saved], { env })),
      ok(await fx.run(['apply', '--plan', saved, '--debug'], { env })),
      ok(await fx.run(['pull', '--dir', src, 'pg', '--debug'], { env })),
    ];
    expect(runs[1]!.stderr).toContain('"password":"[redacted]"');
    expect(fx.emu.catalog.store.sourceConfig('pg')?.password).toBe(PG_PASSWORD);
    const text = [
      ...runs.map((x) => x.stdout + x.stderr),
      readFileSync(saved, 'utf8'),
      ...Object.values(tree(src)),
    ];
    for (const v of values) for (const t of text) expect(t).not.toContain(v);
    expect(readFileSync(join(src, 'pg.yaml'), 'utf8')).toContain(`password: \${env:PG_PASSWORD}`);
  });

  it('a variable allowed by name or prefix is substituted, shown, stored, and pulled back as the reference', async () => {
    const region = folder('allowed', {
      'Sales/region.yaml': `kind: view\npath: [Sales, region]\nsql: SELECT '\${env:LAKE_REGION}' AS region, '\${env:SHOP}' AS shop\n`,
    });
    const allowed = { LAKE_REGION: 'eu-west-9', SHOP: 'north', DLAKE_DEFS_ENV_ALLOW: 'LAKE_*, SHOP' };
    const plan = ok(await fx.run(['plan', '--dir', region], { env: allowed }));
    expect(plan.stdout).toContain(`SELECT 'eu-west-9' AS region, 'north' AS shop`);
    ok(await fx.run(['apply', '--dir', region], { env: allowed }));
    const view = fx.emu.catalog.store.at(['Sales', 'region']) as unknown as { sql: string };
    expect(view.sql).toBe(`SELECT 'eu-west-9' AS region, 'north' AS shop`);
    ok(await fx.run(['pull', '--dir', region, 'Sales/region'], { env: allowed }));
    expect(readFileSync(join(region, 'Sales/region.yaml'), 'utf8')).toContain(
      `sql: SELECT '\${env:LAKE_REGION}' AS region, '\${env:SHOP}' AS shop`,
    );
  });

  it('a DLAKE_DEFS_ENV_ALLOW that lists something else than names and prefixes is exit 2', async () => {
    const r = await fx.run(['plan', '--dir', lake], { env: { ...env, DLAKE_DEFS_ENV_ALLOW: 'PG-HOST' } });
    expectFailure(
      r,
      2,
      'DLAKE_DEFS_ENV_ALLOW holds "PG-HOST", which is neither a variable name nor a prefix',
    );
    revealsNothing(r);
  });
});

describe('a saved plan is checked as a definition file is', () => {
  let saved: string;
  // biome-ignore lint/suspicious/noExplicitAny: the test edits the plan's JSON freely
  let plan: any;
  beforeAll(async () => {
    const lake = folder('plan-src', {
      'Sales/v.yaml': 'kind: view\npath: [Sales, v]\nsql: SELECT 1 AS n\n',
      'Sales.yaml': 'kind: space\npath: [Sales]\ntags: [gold]\n',
    });
    saved = join(tmp, 'plan.json');
    ok(await fx.run(['plan', '--dir', lake, '--out', saved]));
    plan = JSON.parse(readFileSync(saved, 'utf8'));
    expect(plan.entries.map((e: { action: string }) => e.action)).toEqual(['update', 'create']);
  });

  /** `apply --plan` of the saved plan after `edit`: exit 2, one line naming the file and what is wrong. */
  async function refused(edit: (p: typeof plan) => void, message: string): Promise<void> {
    const copy = structuredClone(plan);
    edit(copy);
    const file = join(tmp, 'tampered.json');
    writeFileSync(file, JSON.stringify(copy));
    const r = await fx.run(['apply', '--plan', file]);
    expectFailure(r, 2, `error: ${file} is not a plan dlake makes: ${message}`);
    expect(r.stderr.split('\n').filter((l) => l && !l.startsWith('hint:'))).toHaveLength(1);
    expect(writes()).toEqual([]);
  }

  it('a path component ".." or with a line feed', async () => {
    await refused((p) => {
      p.entries[1].def.path = ['Sales', '..'];
    }, `entries.1.def: the path component "..": ".." would change the URL's path`);
    await refused((p) => {
      p.entries[1].def.path = ['Sales', 'v\nerror: forged'];
    }, 'entries.1.def: the path component "v\\nerror: forged": it contains a control character');
    expect(fx.emu.catalog.store.at(['Sales', 'v'])).toBeUndefined();
  });

  it('a kind changed from view to queue, with its fields or without', async () => {
    await refused((p) => {
      p.entries[1].def.kind = 'queue';
    }, 'entries.1.def: unknown field for a queue: sql');
    await refused((p) => {
      p.entries[0].def.kind = 'queue';
      p.entries[0].def.tags = undefined;
    }, 'entries.0: a queue update needs what was read when planning (state)');
    await refused((p) => {
      p.entries[0].def.kind = 'queue';
      p.entries[0].def.tags = undefined;
      p.entries[0].state = { name: 'etl' };
    }, 'entries.0.state.id: ');
  });

  it('an action no plan makes, a field of the wrong type, what was read missing', async () => {
    await refused((p) => {
      p.entries[1].def = { kind: 'queue', path: ['etl'], fields: {} };
      p.entries[1].action = 'delete';
    }, 'entries.1: a plan never makes a delete of a queue');
    await refused((p) => {
      p.entries[1].def.fields.sql = 42;
    }, 'entries.1.def: a view needs sql');
    await refused((p) => {
      p.entries[0].current = undefined;
    }, 'entries.0: a space update needs what was read when planning (current)');
    await refused((p) => {
      p.entries[1].def.fields.format = { type: 'CSV' };
    }, 'entries.1.def: unknown field for a view: format');
  });

  it("a source secret naming one of dlake's own variables", async () => {
    await refused((p) => {
      p.entries[1].def = {
        kind: 'source',
        path: ['pg'],
        fields: {
          type: 'POSTGRES',
          config: { hostname: 'evil.example.com', password: `\${env:DLAKE_TOKEN}` },
        },
      };
    }, `entries.1.def: config.password names \${env:DLAKE_TOKEN}, which is one of dlake's own settings`);
  });

  it('the same check holds for a definition file', async () => {
    const lake = folder('bad-path', {
      'Sales/up.yaml': 'kind: view\npath: [Sales, "a\\nb"]\nsql: SELECT 1 AS n\n',
    });
    const r = await fx.run(['plan', '--dir', lake]);
    expectFailure(r, 2, 'error: Sales/up.yaml: the path component "a\\nb": it contains a control character');
    expect(fx.emu.log.entries).toEqual([]);
  });

  it('a def edited after review, or the changes it shows: refused, nothing sent', async () => {
    const tampered = async (edit: (p: typeof plan) => void, why: string) => {
      const copy = structuredClone(plan);
      edit(copy);
      const file = join(tmp, 'edited.json');
      writeFileSync(file, JSON.stringify(copy));
      for (const extra of [[], ['--dry-run']]) {
        const r = await fx.run(['apply', '--plan', file, ...extra]);
        expectFailure(
          r,
          2,
          `error: ${file}: entries.1 (Sales/v): its changes are not what its def makes: ${why}`,
        );
      }
      expect(writes()).toEqual([]);
    };
    // The view's SQL sent is not the SQL shown.
    await tampered((p) => {
      p.entries[1].def.fields.sql = 'SELECT secret FROM hr.salaries';
    }, 'sql would be sent as "SELECT secret FROM hr.salaries", which the plan does not show');
    // What is shown is not what is sent.
    await tampered((p) => {
      p.entries[1].changes[0].to = 'SELECT 2 AS n';
    }, 'sql would be sent as "SELECT 1 AS n", which the plan does not show');
    // A field sent that the plan does not show at all.
    await tampered((p) => {
      p.entries[1].def.fields.sqlContext = ['hr'];
    }, 'sqlContext would be sent as ["hr"], which the plan does not show');
  });

  it("a source's hostname edited after review: refused before its password is sent anywhere", async () => {
    const src = folder('pg-src', {
      'pg.yaml': `kind: source\npath: [pg]\ntype: POSTGRES\nconfig:\n  hostname: 127.0.0.2\n  port: 5432\n  databaseName: db\n  username: u\n  password: \${env:PG_PW}\n  authenticationType: MASTER\n`,
    });
    const file = join(tmp, 'pg-plan.json');
    ok(await fx.run(['plan', '--dir', src, '--out', file], { env: { PG_PW: 'pw-Secret-19' } }));
    // Unedited, its dry run prints the request apply would send: where the password goes, not the password.
    const dry = ok(await fx.run(['apply', '--plan', file, '--dry-run'], { env: { PG_PW: 'pw-Secret-19' } }));
    const sends = dry.stderr.split('\n').filter((l) => l.startsWith('would send: '));
    expect(sends).toHaveLength(1);
    // (A source of that name exists from an earlier test: an update.)
    expect(sends[0]).toMatch(/^would send: (POST|PUT) http:\/\/127\.0\.0\.1:\d+\/api\/v3\/catalog\S* \{/);
    expect(JSON.parse(sends[0]!.replace(/^would send: \w+ \S+ /, '')).config).toMatchObject({
      hostname: '127.0.0.2',
      password: '[redacted]',
    });
    expect(dry.stdout + dry.stderr).not.toContain('pw-Secret-19');
    expect(writes()).toEqual([]);
    const edited = JSON.parse(readFileSync(file, 'utf8'));
    edited.entries[0].def.fields.config.hostname = '127.0.0.9';
    writeFileSync(file, JSON.stringify(edited));
    const r = await fx.run(['apply', '--plan', file], { env: { PG_PW: 'pw-Secret-19' } });
    expectFailure(
      r,
      2,
      `error: ${file}: entries.0 (pg): its changes are not what its def makes: config.hostname would be sent as "127.0.0.9", which the plan does not show`,
    );
    expect(writes()).toEqual([]);
  });

  it('the plan as saved still applies', async () => {
    ok(await fx.run(['apply', '--plan', saved]));
    expect(fx.emu.catalog.store.at(['Sales', 'v'])).toBeDefined();
  });
});
