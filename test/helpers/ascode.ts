// What the definitions-as-code tests share: a run that must succeed, a folder's files as one object, a Postgres
// source to pull, and an API client of a fixture's logged-in user for calling plan and apply in-process.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ApiClient } from '../../src/api/http.js';
import type { RunResult } from './dlake.js';
import type { Fixture } from './fixture.js';

/** The run, after checking that it exited 0 (its output in the failure message). */
export function ok(r: RunResult): RunResult {
  expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(0);
  return r;
}

/**
 * `dlake source create pg --type POSTGRES` through `run`, its config (with `password`, the secret a pull must
 * not write) in a file under `tmp`.
 */
export async function createPgSource(
  run: (args: string[]) => Promise<RunResult>,
  tmp: string,
  password: string,
  hostname = 'db.example.com',
): Promise<void> {
  const config = join(tmp, 'pg.json');
  const fields = {
    hostname,
    port: 5432,
    databaseName: 'sales',
    authenticationType: 'MASTER',
    username: 'etl',
  };
  writeFileSync(config, JSON.stringify({ ...fields, password }));
  ok(await run(['source', 'create', 'pg', '--type', 'POSTGRES', '--config-file', config]));
}

/** Every file under `dir`, by relative path, with its text. */
export function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, prefix: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p, `${prefix}${name}/`);
      else out[`${prefix}${name}`] = readFileSync(p, 'utf8');
    }
  };
  walk(dir, '');
  return out;
}

/** A client with the token of the fixture's (first) logged-in user. */
export function clientOf(fx: Fixture): ApiClient {
  const token = [...fx.emu.state.tokens.keys()][0]!;
  return new ApiClient({
    baseUrl: fx.emu.url,
    timeoutMs: 10_000,
    env: {},
    auth: { header: async () => `Bearer ${token}` },
  });
}
