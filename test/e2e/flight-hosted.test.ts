// Arrow Flight on the hosted edition (docs/api-facts.md §14): Bearer on every call, no handshake, and the
// project as a session option: a SetSessionOptions action setting `project_id`, whose session cookie every later
// call sends back. The emulator answers a call without the session from the organisation's default project,
// whose `big` holds other rows: an export that forgot the session would show them.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from 'dlake-emulator';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORG_DEFAULT_PROJECT_ID } from '../../emulator/src/flight/server.js';
import { FlightClient } from '../../src/export/flight/client.js';
import { parseFlightUrl } from '../../src/export/flight/endpoint.js';
import { openFlightResult } from '../../src/export/flight/result.js';
import type { RunResult } from '../helpers/dlake.js';
import { expectFailure, useFixture } from '../helpers/fixture.js';

const PID = '11111111-2222-4333-8444-555555555555';
const QUERY = 'SELECT id, name FROM big ORDER BY id';
let dir: string;
const calls = () => fx.emu.flight!.calls;

// Logged in to the project PID with a PAT of the admin's (useFixture), the profile's Flight endpoint the emulator's.
const fx = useFixture({ edition: 'cloud', cloud: { projectId: PID }, flightPort: 0, bigRows: 9000 });
beforeAll(async () => {
  const set = await fx.run(['--flight-url', fx.emu.flight!.url, 'profile', 'set', 'default']);
  expect(set.code, set.stderr).toBe(0);
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-flight-hosted-'));
  calls().length = 0;
  return () => rmSync(dir, { recursive: true, force: true });
});

describe('the hosted edition over Flight', () => {
  it("reads the profile's project through a session, byte for byte the REST export, never the default project", async () => {
    const viaFlight = join(dir, 'flight.csv');
    const f = await fx.run(['sql', QUERY, '--out', viaFlight, '--transport', 'flight']);
    expect(f.code, f.stderr).toBe(0);
    expect(f.stderr).toContain('wrote 9,000 rows');
    const viaRest = join(dir, 'rest.csv');
    const r = await fx.run(['sql', QUERY, '--out', viaRest, '--transport', 'rest']);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(viaFlight, 'utf8');
    expect(text).toBe(readFileSync(viaRest, 'utf8'));
    expect(text).not.toContain('default project row');

    // SetSessionOptions first, then every call with its cookie, in the project; Bearer on each, no handshake.
    expect(calls().map((c) => c.method)).toEqual(['DoAction', 'GetFlightInfo', 'DoGet']);
    expect(calls()[0]).toMatchObject({ action: 'SetSessionOptions', projectId: PID, cookie: false });
    expect(
      calls()
        .slice(1)
        .every((c) => c.cookie && c.projectId === PID),
    ).toBe(true);
    expect(calls().every((c) => c.authScheme === 'Bearer' && c.credential === 'pat' && c.code === 0)).toBe(
      true,
    );
    // Batches of the service's 4,095 rows.
    expect(calls()[2]).toMatchObject({ batches: 3, rows: 9000 });
  });

  it('the emulator makes a forgotten session visible: the default project’s rows', async () => {
    const client = new FlightClient({ endpoint: parseFlightUrl(fx.emu.flight!.url), idleMs: 10_000 });
    const result = await openFlightResult(client, { sql: QUERY, authorization: `Bearer ${fx.pat()}` });
    const ids: bigint[] = [];
    for await (const b of result.batches) for (const row of b) ids.push(row!.toJSON().id as bigint);
    client.close();
    expect(ids).toEqual([1000001n, 1000002n, 1000003n]);
    expect(calls().every((c) => c.projectId === ORG_DEFAULT_PROJECT_ID)).toBe(true);
  });

  it('a project the organisation does not have is refused by name (exit 6), nothing written', async () => {
    const out = join(dir, 'x.csv');
    const r = await runHosted(['sql', QUERY, '--out', out, '--transport', 'flight'], {
      projectId: '99999999-2222-4333-8444-555555555555',
      token: fx.pat(),
      flightUrl: fx.emu.flight!.url,
    });
    expect(r.code, r.stderr).toBe(6);
    expect(r.stderr).toContain('did not set the session option project_id (INVALID_VALUE)');
    expect(calls().map((c) => c.method)).toEqual(['DoAction']);
    expect(readdirSync(dir)).toEqual([]);
  });
});

it('an endpoint that takes no session options is named (exit 6): the project cannot be set, no query is sent', async () => {
  // A self-hosted service's Flight endpoint answers SetSessionOptions UNIMPLEMENTED, as Arrow before 16 does.
  const other = await startEmulator({ flightPort: 0 });
  try {
    const out = join(dir, 'x.csv');
    const r = await runHosted(['sql', QUERY, '--out', out, '--transport', 'flight'], {
      projectId: PID,
      token: other.state.issueToken(other.state.userByName('admin')!.id, 'pat', 3_600_000).token,
      flightUrl: other.flight!.url,
    });
    expectFailure(
      r,
      6,
      /^error: the Flight endpoint did not set the session option project_id: it takes no session options \(SetSessionOptions: Unknown action: SetSessionOptions\): export stopped after 0 rows; .*x\.csv was not written$/,
    );
    expect(r.stderr).toContain(
      "hint: the hosted edition's Flight endpoint is grpc+tls://data.dremio.cloud:443",
    );
    expect(other.flight!.calls.map((c) => c.method)).toEqual(['DoAction']);
    expect(readdirSync(dir)).toEqual([]);
  } finally {
    await other.close();
  }
});

/**
 * Runs dlake on the hosted edition from the environment alone (DLAKE_EDITION, DLAKE_PROJECT_ID, DLAKE_TOKEN,
 * DLAKE_FLIGHT_URL), with a config folder of its own that holds no profile: nothing of the logged-in one is used.
 */
async function runHosted(
  args: string[],
  hosted: { projectId: string; token: string; flightUrl: string },
): Promise<RunResult> {
  const cfg = mkdtempSync(join(tmpdir(), 'dlake-flight-hosted-cfg-'));
  try {
    return await fx.run(args, {
      env: {
        DLAKE_CONFIG_DIR: cfg,
        DLAKE_EDITION: 'cloud',
        DLAKE_PROJECT_ID: hosted.projectId,
        DLAKE_TOKEN: hosted.token,
        DLAKE_FLIGHT_URL: hosted.flightUrl,
      },
    });
  } finally {
    rmSync(cfg, { recursive: true, force: true });
  }
}
