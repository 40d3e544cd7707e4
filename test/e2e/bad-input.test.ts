// The foundation's bad inputs: each ends in one `error:` line, the contract's exit code, and nothing lost.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { expectFailure, useFixture } from '../helpers/fixture.js';

const fx = useFixture({}, { login: false });
beforeEach(async () => {
  for (const f of ['config.json', 'credentials.json']) writeFileSync(join(fx.configDir, f), '{}');
  fx.emu.faults.clear();
  expect((await fx.login()).code).toBe(0);
});

describe('bad input', () => {
  it('unknown profile: exit 2, naming the known ones', async () => {
    const r = await fx.run(['api', 'GET', '/api/v3/catalog', '-p', 'nope']);
    expectFailure(r, 2, 'unknown profile "nope"');
    expect(r.stderr).toContain('known profiles: default');
  });

  it('missing URL: exit 2 with the flag and variable to set', async () => {
    writeFileSync(join(fx.configDir, 'config.json'), '{}');
    const r = await fx.run(['api', 'GET', '/api/v3/catalog'], { url: false });
    expectFailure(r, 2, 'no service URL is set');
    expect(r.stderr).toMatch(/hint: .*--url URL.*DLAKE_URL/);
  });

  it('malformed --data JSON: exit 2 before any request', async () => {
    fx.emu.log.clear();
    const r = await fx.run(['api', 'POST', '/api/v3/sql', '--data', '{"sql": ']);
    expectFailure(r, 2, '--data is not valid JSON');
    expect(fx.emu.log.entries).toHaveLength(0);
  });

  it('an HTML answer: exit 7 naming the endpoint', async () => {
    fx.emu.fault({ kind: 'html', path: '/api/v3/catalog' });
    const r = await fx.run(['whoami', '--check']);
    expectFailure(r, 7, 'the service answered GET /api/v3/catalog with an HTML page');
  });

  it('a body that breaks the schema: exit 7 naming the endpoint and field', async () => {
    fx.emu.fault({ kind: 'schema', path: '/api/v3/catalog' });
    const r = await fx.run(['whoami', '--check']);
    expectFailure(r, 7, /unexpected answer from GET \/api\/v3\/catalog: data: /);
  });

  it('connection refused: exit 7 with a hint about the URL', async () => {
    const r = await fx.run(['api', 'GET', '/api/v3/catalog', '--url', 'http://127.0.0.1:9'], {
      env: { DLAKE_TOKEN: 'any' },
    });
    expectFailure(r, 7, 'cannot reach http://127.0.0.1:9/api/v3/catalog: connection refused');
    expect(r.stderr).toContain('hint: check --url');
  });

  it('a timeout: exit 7 after the retries, naming --timeout', async () => {
    fx.emu.fault({ kind: 'latency', path: '/api/v3/catalog', latencyMs: 1500 });
    const r = await fx.run(['whoami', '--check', '--timeout', '300ms']);
    expectFailure(r, 7, 'no answer within the per-request timeout of 300ms; gave up after 4 attempts');
    expect(r.stderr).toContain('hint: a slow service may need a longer per-request timeout: --timeout');
    expect(fx.emu.log.find('GET', '/api/v3/catalog')).toHaveLength(4);
  });

  it('a 503 that persists: retried, then exit 7', async () => {
    fx.emu.fault({ kind: 'status', status: 503, path: '/api/v3/catalog' });
    const r = await fx.run(['api', 'GET', '/api/v3/catalog']);
    expectFailure(r, 7, /the service failed \(503\).*; gave up after 4 attempts/);
    expect(fx.emu.log.find('GET', '/api/v3/catalog')).toHaveLength(4);
  });

  it('a 429 with Retry-After, once: retried and succeeds', async () => {
    fx.emu.fault({ kind: 'status', status: 429, retryAfter: 1, path: '/api/v3/catalog', times: 1 });
    const r = await fx.run(['api', 'GET', '/api/v3/catalog']);
    expect(r.code).toBe(0);
    expect(fx.emu.log.find('GET', '/api/v3/catalog').map((e) => e.status)).toEqual([429, 200]);
  });

  it('a corrupt config file: exit 2 naming it, the file untouched', async () => {
    const path = join(fx.configDir, 'config.json');
    writeFileSync(path, '{"profiles": {"default": ');
    for (const args of [
      ['api', 'GET', '/api/v3/catalog'],
      ['profile', 'set', 'x', '--url', 'http://x'],
      ['login', '-u', 'admin', '--password-stdin'],
    ]) {
      const r = await fx.run(args, { input: 'admin-pass-1' });
      expectFailure(r, 2, `the config file ${path} is not valid`);
    }
    expect(readFileSync(path, 'utf8')).toBe('{"profiles": {"default": ');
  });

  it('a corrupt credentials file means logged out, and says so', async () => {
    writeFileSync(join(fx.configDir, 'credentials.json'), 'not json');
    const r = await fx.run(['api', 'GET', '/api/v3/catalog']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/credentials\.json is not valid/);
    expect(readFileSync(join(fx.configDir, 'credentials.json'), 'utf8')).toBe('not json');
  });

  it('an unknown option or a missing argument: exit 2 with a usage line', async () => {
    const unknown = await fx.run(['api', 'GET', '/x', '--bogus']);
    expectFailure(unknown, 2, "unknown option '--bogus'");
    expect(unknown.stderr).toMatch(/^usage: dlake api \[options\] <method> <path>$/m);
    const missing = await fx.run(['api', 'GET']);
    expectFailure(missing, 2, "missing required argument 'path'");
    const typo = await fx.run(['whoamy']);
    expectFailure(typo, 2, "unknown command 'whoamy'");
    expect(typo.stderr).toContain('(Did you mean dlake whoami?)');
  });

  it('an unknown HTTP method: exit 2', async () => {
    expectFailure(await fx.run(['api', 'FETCH', '/x']), 2, 'unknown HTTP method "FETCH"');
  });

  it('a line break or tab in an api path: exit 2, nothing sent (the URL parser would drop it silently)', async () => {
    fx.emu.log.clear();
    for (const path of ['/api/v3/catalog\r\n', '/api/v3/cat\nalog', '/api/v3/\tcatalog']) {
      expectFailure(await fx.run(['api', 'GET', path]), 2, 'holds a control character (a line break, a tab)');
    }
    expect(fx.emu.log.entries).toEqual([]);
  });
});

describe('a closed pipe', () => {
  it('`dlake … | head` ends quietly with 0 when the reader goes away', async () => {
    const { execFile } = await import('node:child_process');
    const { BIN, cleanEnv } = await import('../helpers/dlake.js');
    // More than a pipe buffer (64 KiB) of output, so dlake is still writing when head exits.
    const script = `"${process.execPath}" "${BIN}" api GET /api/v3/reflection-summary --paginate | head -c 100 > /dev/null; echo "exit=\${PIPESTATUS[0]}"`;
    const env = cleanEnv({ DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url });
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
      execFile('bash', ['-c', script], { env }, (err, out, errOut) =>
        err ? reject(err) : resolve({ stdout: out, stderr: errOut }),
      ),
    );
    expect(stdout.trim()).toBe('exit=0');
    expect(stderr).toBe('');
  });
});

describe('dlake api', () => {
  it('prints the body, applies --query, and takes paths below /api/v3', async () => {
    const r = await fx.run(['api', 'GET', 'catalog', '--query', 'length(data)']);
    expect(r.code).toBe(0);
    expect(Number(r.stdout)).toBeGreaterThanOrEqual(1);
    expect(fx.emu.log.entries.at(-1)?.path).toBe('/api/v3/catalog');
  });

  it('--paginate follows nextPageToken and prints one merged document', async () => {
    const r = await fx.run(['api', 'GET', '/api/v3/reflection-summary', '--paginate']);
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout);
    const pages = fx.emu.log.find('GET', '/api/v3/reflection-summary');
    expect(pages.length).toBeGreaterThan(1);
    expect(body.nextPageToken).toBeUndefined();
    expect(new Set(body.data.map((d: { id: string }) => d.id)).size).toBe(body.data.length);
    expect(body.data.length).toBeGreaterThan(50);
  });

  it('sends --data from a file and maps the status of the answer', async () => {
    const file = join(fx.configDir, 'q.json');
    writeFileSync(file, JSON.stringify({ name: 'default' }));
    const r = await fx.run(['api', 'POST', '/api/v3/wlm/queue', '--data', `@${file}`]);
    expect(r.code).toBe(5);
    expect(fx.emu.log.find('POST', '/api/v3/wlm/queue')).toHaveLength(1);
  });
});
