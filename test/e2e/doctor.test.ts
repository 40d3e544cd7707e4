// `dlake doctor` (docs/cli-contract.md "Doctor"): each step between dlake and the service checked on its own,
// one line each with the fix of a failing one, exit 10 when one fails. Against the emulator on both editions,
// and against what goes wrong in the field: a server answering HTML, a dead port, an expired login, a TLS
// server whose CA is unknown, a skewed clock, a server that never answers.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { useFixture } from '../helpers/fixture.js';
import { freePort } from '../helpers/free-port.js';

interface Check {
  check: string;
  status: string;
  finding: string;
  fix?: string;
}

/** The report of `dlake doctor -o json`, its checks by name. */
function checksOf(stdout: string): Record<string, Check> {
  const report = JSON.parse(stdout) as { checks: Check[] };
  return Object.fromEntries(report.checks.map((c) => [c.check, c]));
}

/** A usage error: exit 2 and its one error line. */
function expectUsage(r: { code: number | null; stderr: string }, message: string): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain(`error: ${message}`);
}

const statuses = (checks: Record<string, Check>) =>
  Object.fromEntries(Object.values(checks).map((c) => [c.check, c.status]));

/** A local server with `handler`, closed after the test. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

describe('against the emulator, self-hosted, with Flight', () => {
  const fx = useFixture({ flightPort: 0 }, { login: false });
  beforeAll(async () => {
    const login = await fx.run(
      ['--flight-url', fx.emu.flight!.url, 'login', '-u', 'admin', '--password-stdin'],
      {
        input: 'admin-pass-1\n',
      },
    );
    expect(login.code, login.stderr).toBe(0);
  });

  it('passes every check, says what it found, and shows no secret', async () => {
    fx.emu.log.clear();
    const r = await fx.run(['doctor', '-o', 'json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const checks = checksOf(r.stdout);
    expect(statuses(checks)).toEqual({
      config: 'ok',
      profile: 'ok',
      dns: 'ok',
      tcp: 'ok',
      tls: 'skip',
      api: 'ok',
      clock: 'ok',
      login: 'ok',
      service: 'ok',
      pats: 'ok',
      flight: 'ok',
      'rate-limits': 'skip',
      'credential-store': 'ok',
    });
    expect(checks.api!.finding).toContain('401 without credentials');
    expect(checks.login!.finding).toMatch(
      /^session token of admin via password \(.* left\); the service knows you as admin$/,
    );
    expect(checks.service!.finding).toBe('the self-hosted edition, version 26.0.0-emulator');
    expect(checks.flight!.finding).toContain(
      `${fx.emu.flight!.url} (the flight-url of profile "default") answers`,
    );
    // The API root asked without credentials, the rest with them; each once (no retries).
    const root = fx.emu.log.find('GET', '/api/v3/catalog');
    expect(root.map((e) => [e.authScheme ?? 'none', e.status])).toEqual([
      ['none', 401],
      [expect.not.stringMatching(/^none$/), 200],
    ]);
    expect(fx.emu.log.find('GET', '/api/v3/info')).toHaveLength(1);
    const stored = fx.readJson('credentials.json').tokens.default;
    for (const secret of [stored.token, stored.flight.token]) {
      expect(r.stdout).not.toContain(secret);
      expect(r.stderr).not.toContain(secret);
    }
  });

  it('prints one line a check on a terminal-less stdout, each failure with its fix, and a last line', async () => {
    const r = await fx.run(['doctor']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ok {4}config {11}/);
    expect(lines.at(-1)).toBe('every check passed');
    expect(lines).toHaveLength(13 + 2);
  });

  it('a login again after a logout does the Flight handshake with the endpoint the profile keeps', async () => {
    expect((await fx.run(['logout'])).code).toBe(0);
    const login = await fx.run(['login', '-u', 'admin', '--password-stdin'], { input: 'admin-pass-1\n' });
    expect(login.code, login.stderr).toBe(0);
    expect(fx.readJson('credentials.json').tokens.default.flight.url).toBe(fx.emu.flight!.url);
    const { flight } = checksOf((await fx.run(['doctor', '-o', 'json'])).stdout);
    expect(flight!.status).toBe('ok');
  });

  it('a profile without its Flight token fails the flight check, saying why', async () => {
    const file = join(fx.configDir, 'credentials.json');
    const before = readFileSync(file, 'utf8');
    const creds = JSON.parse(before);
    delete creds.tokens.default.flight;
    writeFileSync(file, JSON.stringify(creds), { mode: 0o600 });
    try {
      const r = await fx.run(['doctor', '-o', 'json']);
      expect(r.code).toBe(10);
      const { flight } = checksOf(r.stdout);
      expect(flight).toMatchObject({ status: 'fail' });
      expect(flight!.finding).toBe(
        `${fx.emu.flight!.url} (the flight-url of profile "default") refused: profile "default" has no Flight token for ${fx.emu.flight!.url} (its REST session is never sent to Flight)`,
      );
    } finally {
      writeFileSync(file, before, { mode: 0o600 });
    }
  });

  it('an expired login that cannot renew itself fails, naming the login to run', async () => {
    const file = join(fx.configDir, 'credentials.json');
    const before = readFileSync(file, 'utf8');
    const creds = JSON.parse(before);
    creds.tokens.default.expiresAt = '2020-01-01T00:00:00.000Z';
    writeFileSync(file, JSON.stringify(creds), { mode: 0o600 });
    try {
      const r = await fx.run(['doctor', '-o', 'json']);
      expect(r.code).toBe(10);
      const { login, service, flight } = checksOf(r.stdout);
      expect(login).toEqual({
        check: 'login',
        status: 'fail',
        finding:
          'the session token of admin via password (expired at 2020-01-01T00:00:00.000Z) cannot renew itself',
        fix: 'dlake login -u admin (or --token-stdin for a personal access token)',
      });
      expect([service!.status, flight!.status]).toEqual(['skip', 'skip']);
    } finally {
      writeFileSync(file, before, { mode: 0o600 });
    }
  });

  it('--bundle: the report, settings, history, failed jobs with profiles, queues, sources and the trace, listed in MANIFEST.json, no secret', async () => {
    expect((await fx.run(['sql', 'SELECT no_such_column FROM big'])).code).toBe(6);
    const dir = mkdtempSync(join(tmpdir(), 'dlake-bundle-'));
    try {
      const out = join(dir, 'support.tar.gz');
      const r = await fx.run(['doctor', '--bundle', out, '--jobs', '2', '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        /^wrote the support bundle .*support\.tar\.gz \(.+, \d+ files listed in MANIFEST\.json(; left out: .+)?\)$/m,
      );
      expect(readdirSync(dir)).toEqual(['support.tar.gz']);
      const files = join(dir, 'x');
      mkdirSync(files);
      const tar = spawnSync('tar', ['-xzf', out, '-C', files], { encoding: 'utf8' });
      expect(tar.status, tar.stderr).toBe(0);
      const manifest = JSON.parse(readFileSync(join(files, 'MANIFEST.json'), 'utf8')) as {
        files: { path: string; bytes: number; holds: string }[];
      };
      const paths = manifest.files.map((f) => f.path);
      expect(paths).toEqual(
        expect.arrayContaining([
          'doctor.json',
          'dlake.json',
          'jobs/history.json',
          'jobs/failed.json',
          'reflections.json',
          'queues.json',
          'rules.json',
          'sources.json',
          'trace.txt',
        ]),
      );
      expect(
        paths.filter((p) => /^jobs\/[0-9a-f-]{36}\/profile\.zip$/.test(p)).length,
      ).toBeGreaterThanOrEqual(1);
      for (const f of manifest.files) {
        expect(statSync(join(files, f.path)).size, f.path).toBe(f.bytes);
        expect(f.holds, f.path).not.toBe('');
      }
      const failed = JSON.parse(readFileSync(join(files, 'jobs/failed.json'), 'utf8')) as { state: string }[];
      expect(failed.length).toBeGreaterThanOrEqual(1);
      expect(failed.every((j) => j.state === 'FAILED')).toBe(true);
      const trace = readFileSync(join(files, 'trace.txt'), 'utf8');
      expect(trace).toMatch(/GET .*\/api\/v3\/catalog/);
      expect(trace).toContain('[redacted]');
      const stored = fx.readJson('credentials.json').tokens.default;
      const everything = spawnSync('grep', ['-rl', stored.token, files], { encoding: 'utf8' });
      expect(everything.stdout).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--bundle that would hold a secret in force: exit 9, no archive, nothing left', async () => {
    const token = fx.readJson('credentials.json').tokens.default.token as string;
    // The history keeps the text of every query: this one holds the session token.
    expect((await fx.run(['sql', `SELECT '${token}' AS pasted_by_mistake`])).code).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'dlake-bundle-'));
    try {
      const r = await fx.run(['doctor', '--bundle', join(dir, 'support.tar.gz')]);
      expect(r.code).toBe(9);
      expect(r.stderr).toContain(
        'error: the bundle would hold a secret in force (in jobs/history.json): not written',
      );
      expect(r.stderr).not.toContain(token);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expectUsage(
      await fx.run(['doctor', '--bundle', 'support.zip']),
      '--bundle support.zip: the bundle is a .tar.gz file',
    );
    expectUsage(await fx.run(['doctor', '--jobs', '3']), '--jobs and --since describe the bundle');
  });

  it("a clock two hours ahead of the service's fails, saying what it does to tokens", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 2 * 3600_000);
    let r: Awaited<ReturnType<typeof fx.run>>;
    try {
      r = await fx.run(['doctor', '-o', 'json']);
    } finally {
      vi.useRealTimers();
    }
    expect(r.code).toBe(10);
    const { clock } = checksOf(r.stdout);
    expect(clock!.status).toBe('fail');
    expect(clock!.finding).toMatch(
      /^this machine's clock is 2h( \d+s)? ahead of the service's: tokens look expired early/,
    );
    expect(clock!.fix).toContain('timedatectl set-ntp true');
  });
});

describe('what goes wrong in the field', () => {
  const fx = useFixture({}, { login: false });

  it('a dead port: the refused connection named, what needs it skipped, exit 10', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const r = await fx.run(['doctor', '-o', 'json'], { env: { DLAKE_URL: url } });
    expect(r.code).toBe(10);
    const checks = checksOf(r.stdout);
    expect(checks.tcp).toMatchObject({
      status: 'fail',
      finding: `connection refused by ${url.slice(7)}: nothing listens on that port`,
      fix: expect.stringContaining('check the port in the URL'),
    });
    expect(checks.api!.finding).toBe('not checked: the service cannot be reached (above)');
    expect(statuses(checks)).toMatchObject({ dns: 'ok', api: 'skip', clock: 'skip', service: 'skip' });
  });

  it('an HTML page at the URL (a portal, a proxy) is named as such, with its title', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!DOCTYPE html><html><head><title>Sign in - Example Corp</title></head><body>…</body></html>');
    });
    const r = await fx.run(['doctor'], { env: { DLAKE_URL: url } });
    expect(r.code).toBe(10);
    expect(r.stdout).toMatch(
      new RegExp(
        `^fail  api +an HTML page answered GET ${url}/api/v3/catalog \\(200, titled "Sign in - Example Corp"\\): a proxy, a sign-in portal or another web server, not the service's API$`,
        'm',
      ),
    );
    expect(r.stdout).toMatch(/^ +fix: check the URL: the service's own address and port/m);
  });

  it("a page's title with escape sequences and a C1 control: shown, never sent to the terminal raw", async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><head><title>Sign in\u009b31m\u001b]0;PWNED\u0007\u202e</title></head></html>');
    });
    const r = await fx.run(['doctor'], { env: { DLAKE_URL: url }, tty: true });
    expect(r.code).toBe(10);
    expect(r.stdout).not.toMatch(/[\u001b\u0007\u009b\u202e]/);
    expect(r.stdout).toContain('in\ufffd31m␛]0;PWNED␇<U+202E>');
  });

  it('a server that accepts and never answers: each check ends at its bound', async () => {
    const { url } = await serve(() => {});
    const r = await fx.run(['--timeout', '1s', 'doctor', '-o', 'json'], { env: { DLAKE_URL: url } });
    expect(r.code).toBe(10);
    const { tcp, api } = checksOf(r.stdout);
    expect(tcp!.status).toBe('ok');
    expect(api).toMatchObject({
      status: 'fail',
      finding: expect.stringContaining('no answer within the per-request timeout of 1s'),
    });
    expect(api!.finding).not.toContain('attempts');
  });
});

describe('TLS with a CA the system does not know', () => {
  const TLS = resolve(import.meta.dirname, '../fixtures/tls');
  const fx = useFixture(
    {
      tls: {
        key: readFileSync(`${TLS}/server.key`, 'utf8'),
        cert: readFileSync(`${TLS}/server.pem`, 'utf8'),
      },
    },
    { login: false },
  );

  it('fails the TLS check naming the certificate and the --ca-file that fixes it; with it, passes', async () => {
    const r = await fx.run(['doctor', '-o', 'json']);
    expect(r.code).toBe(10);
    const { tls, api } = checksOf(r.stdout);
    expect(tls!.status).toBe('fail');
    expect(tls!.finding).toMatch(
      /^the certificate of .+ \(issued by .+\) is not trusted by the system's CAs: [A-Z_]+$/,
    );
    expect(tls!.fix).toContain('--ca-file ca.pem or DLAKE_CA_FILE=ca.pem');
    expect(api!.status).toBe('skip');
    const trusted = await fx.run(['doctor', '-o', 'json', '--ca-file', `${TLS}/ca.pem`]);
    const checks = checksOf(trusted.stdout);
    expect(checks.tls!.status, checks.tls!.finding).toBe('ok');
    expect(checks.tls!.finding).toContain(`trusted by the system's CAs and ${TLS}/ca.pem`);
    expect(checks.api!.status).toBe('ok');
  });
});

describe('the hosted edition', () => {
  const PID = '48ca6975-39ad-47cb-9bb5-de73060380f6';
  const fx = useFixture({ edition: 'cloud', cloud: { projectId: PID } }, { login: false });
  beforeAll(async () => {
    const pat = fx.emu.state.issueToken(fx.emu.state.userByName('admin')!.id, 'pat', 3_600_000).token;
    const login = await fx.run(['--edition', 'cloud', '--project-id', PID, 'login', '--token-stdin'], {
      input: `${pat}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
  });

  it('--bundle on the hosted edition: engines and their rules, profiles left out and said so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dlake-bundle-'));
    try {
      const out = join(dir, 'support.tar.gz');
      const r = await fx.run(['doctor', '--bundle', out, '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      const list = spawnSync('tar', ['-xzOf', out, 'MANIFEST.json'], { encoding: 'utf8' });
      const manifest = JSON.parse(list.stdout) as {
        files: { path: string }[];
        skipped: { what: string; why: string }[];
      };
      expect(manifest.files.map((f) => f.path)).toEqual(
        expect.arrayContaining(['engines.json', 'engine-rules.json', 'jobs/history.json']),
      );
      expect(manifest.files.map((f) => f.path)).not.toContain('queues.json');
      expect(manifest.skipped).toContainEqual({
        what: "the failed jobs' profiles",
        why: 'the hosted edition has no public profile download',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checks the project, its PATs and its rate limits', async () => {
    fx.emu.log.clear();
    const r = await fx.run(['doctor', '-o', 'json']);
    expect(r.code, r.stdout).toBe(0);
    const checks = checksOf(r.stdout);
    expect(checks.profile!.finding).toContain(`cloud edition (profile), project ${PID}`);
    expect(checks.service!.finding).toMatch(/^the hosted edition; project /);
    expect(checks.pats!.finding).toBe('personal access tokens are always on in the hosted edition');
    expect(checks['rate-limits']!.finding).toBe(
      'per IP address and 1m: 100 job-status, 1,000 results-page, 100 cancel and 1,200 requests in all (the published limits); dlake keeps below 80 % of each',
    );
    expect(fx.emu.log.find('GET', `/v0/projects/${PID}/catalog`).map((e) => e.status)).toEqual([401, 200]);
  });
});
