// Several dlake processes writing the store at once: the files stay valid JSON and no write is lost.
import { expect, it } from 'vitest';
import { ADMIN, useFixture } from '../helpers/fixture.js';

const fx = useFixture({}, { login: false });

it('10 concurrent processes logging in and creating profiles lose nothing', async () => {
  const runs = Array.from({ length: 10 }, (_, i) =>
    i % 2 === 0
      ? fx.spawn(['login', '-p', `p${i}`, '-u', ADMIN.name, '--password-stdin'], { input: ADMIN.password })
      : fx.spawn(['profile', 'set', `p${i}`, '--url', `http://host-${i}.example`]),
  );
  const results = await Promise.all(runs);
  for (const r of results) expect(r.code, r.stderr).toBe(0);
  const config = fx.readJson('config.json');
  const creds = fx.readJson('credentials.json');
  expect(Object.keys(config.profiles).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `p${i}`).sort());
  expect(Object.keys(creds.tokens).sort()).toEqual(['p0', 'p2', 'p4', 'p6', 'p8']);
});
