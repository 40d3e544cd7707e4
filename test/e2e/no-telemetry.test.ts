// No telemetry (docs/cli-contract.md "No telemetry"): a whole tour of dlake, run as the built binary with every
// network connection it opens written down (test/helpers/connection-log.cjs), connects to the profile's hosts and
// to nothing else: no analytics, no update check, no crash report, no lookup of its own.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import { startMcp } from '../helpers/mcp.js';

const PRELOAD = resolve(import.meta.dirname, '../helpers/connection-log.cjs');
let dir: string;
let log: string;

const fx = useFixture({ bigRows: 500, jobStepMs: 5, flightPort: 0 }, { login: false });
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-no-telemetry-'));
  log = join(dir, 'connections.log');
  writeFileSync(log, '');
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
});

describe('no telemetry', () => {
  it("a whole tour connects to the profile's hosts only", async () => {
    const env = { NODE_OPTIONS: `--require ${PRELOAD}`, DLAKE_TEST_CONNECTION_LOG: log, HOME: dir };
    const flightUrl = fx.emu.flight!.url;
    const tour: [string[], string?][] = [
      [['--flight-url', flightUrl, 'login', '-u', 'admin', '--password-stdin'], 'admin-pass-1\n'],
      [['whoami']],
      [['catalog', 'ls']],
      [['search', 'big']],
      [['sql', 'SELECT id FROM big ORDER BY id LIMIT 3']],
      [['sql', 'SELECT * FROM big ORDER BY id', '--out', join(dir, 'rows.csv'), '--transport', 'flight']],
      [['sql', '--read-only', 'SELECT 1 AS x', '-o', 'json']],
      [['job', 'list', '--limit', '5']],
      [['reflection', 'summary']],
      [['describe', '-o', 'json']],
      [['agents', 'list']],
      [['agents', 'install', 'codex', '--dry-run']],
      [['version']],
      [['nope']],
    ];
    for (const [args, input] of tour) await fx.spawn(args, { env, ...(input ? { input } : {}) });
    // An agent's session too: every tool call goes to the profile's service.
    const s = await startMcp([], { DLAKE_CONFIG_DIR: fx.configDir, ...env });
    try {
      await s.call('run_sql', { sql: 'SELECT 1 AS x' });
      await s.call('list_jobs', {});
    } finally {
      await s.close();
    }
    const seen = readFileSync(log, 'utf8').trim().split('\n').filter(Boolean);
    const allowed = new Set([new URL(fx.emu.url).port, new URL(flightUrl.replace(/^grpc/, 'http')).port]);
    // The tour did connect (the log works), and to nothing but the emulator's REST and Flight ports on this host.
    expect(seen.length).toBeGreaterThan(10);
    expect(
      seen.filter(
        (l) => !/^tcp (127\.0\.0\.1|localhost|::1):\d+$/.test(l) || !allowed.has(l.split(':').at(-1)!),
      ),
    ).toEqual([]);
    expect(seen.some((l) => l.endsWith(`:${new URL(flightUrl.replace(/^grpc/, 'http')).port}`))).toBe(true);
  });
});
