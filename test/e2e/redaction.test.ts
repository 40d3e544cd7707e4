// A service or proxy that echoes the secret it was sent (`bad request for token …`, common) gets it printed
// nowhere: one redaction of every secret in force (src/output/secrets.ts) covers every text dlake writes, the
// `error:` line, its details, -v's moreInfo, --debug and standard output alike. The hostile server
// (test/helpers/hostile/server.ts) echoes the Authorization it receives, and a login's password, in every field
// of its error.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN, useFixture } from '../helpers/fixture.js';
import { type HostileServer, startHostileServer } from '../helpers/hostile/server.js';

let hostile: HostileServer;
const ECHO = {
  rule: { kind: 'status', status: 400, body: 'error-json' },
  reach: { from: 0, times: 'all' },
} as const;

const fx = useFixture({}, { login: false });
beforeAll(async () => {
  hostile = await startHostileServer(fx.emu.url);
  const r = await fx.run(['login', '-u', ADMIN.name, '--password-stdin', '--url', hostile.url], {
    input: `${ADMIN.password}\n`,
    url: false,
  });
  expect(r.code).toBe(0);
});
afterAll(async () => {
  await hostile.close();
});

const storedToken = (): string =>
  Object.values(fx.readJson('credentials.json').tokens as Record<string, { token: string }>)[0]!.token;

it('the stored session token echoed in every field of an error: redacted in the error, -v and --debug', async () => {
  const token = storedToken();
  for (const extra of [[], ['-v'], ['--debug']]) {
    hostile.reset(ECHO);
    const r = await fx.run(['catalog', 'ls', ...extra], { url: false });
    expect(r.code).toBe(2);
    // The server did echo it (the exchange log shows the answer as sent).
    expect(hostile.exchanges[0]!.sent).toContain(token);
    expect(r.stderr + r.stdout).not.toContain(token);
    expect(r.stderr).toContain('bad request for token [redacted]');
  }
});

it('DLAKE_TOKEN echoed back: redacted', async () => {
  hostile.reset(ECHO);
  const token = 'env-token-abcdef0123456789';
  const r = await fx.run(['catalog', 'ls'], {
    url: false,
    env: { DLAKE_TOKEN: token, DLAKE_URL: hostile.url },
  });
  expect(r.stderr).toContain('[redacted]');
  expect(r.stderr).not.toContain(token);
});

it("a login's password echoed in its refusal: redacted", async () => {
  hostile.reset({
    rule: { kind: 'status', status: 401, body: 'error-json' },
    reach: { from: 0, times: 'all' },
  });
  const r = await fx.run(
    ['login', '-u', ADMIN.name, '--password-stdin', '-p', 'other', '--url', hostile.url],
    {
      input: `${ADMIN.password}\n`,
      url: false,
    },
  );
  expect(r.code).toBe(3);
  expect(hostile.exchanges[0]!.sent).toContain(ADMIN.password);
  expect(r.stderr + r.stdout).not.toContain(ADMIN.password);
});

it('the token in data the service answers: redacted on standard output too', async () => {
  const token = storedToken();
  hostile.reset({ rule: { kind: 'secret-everywhere' }, reach: { from: 0, times: 'all' } });
  const r = await fx.run(['catalog', 'ls', '-o', 'json'], { url: false });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('[redacted]');
  expect(r.stdout).not.toContain(token);
});
