// `strictSpec`: the emulator serves only the spec's endpoints, so a test shows which commands depend on an
// endpoint outside the spec. And `secretPlaceholder`: source secrets masked with another text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../src/server.js';

async function loginToken(emu: Emulator): Promise<string> {
  const res = await fetch(`${emu.url}/apiv2/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userName: 'admin', password: 'admin-pass-1' }),
  });
  return `_service${((await res.json()) as { token: string }).token}`;
}

describe('strictSpec', () => {
  let strict: Emulator;
  let full: Emulator;
  beforeAll(async () => {
    strict = await startEmulator({ strictSpec: true });
    full = await startEmulator();
  });
  afterAll(async () => {
    await strict.close();
    await full.close();
  });

  it('answers 404 for endpoints outside the spec, and serves the spec', async () => {
    for (const [emu, infoStatus] of [
      [strict, 404],
      [full, 200],
    ] as const) {
      const authorization = await loginToken(emu);
      const info = await fetch(`${emu.url}/api/v3/info`, { headers: { authorization } });
      expect(info.status).toBe(infoStatus);
      const catalog = await fetch(`${emu.url}/api/v3/catalog`, { headers: { authorization } });
      expect(catalog.status).toBe(200);
    }
  });
});

describe('secretPlaceholder', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator({ secretPlaceholder: '$DREMIO_EXISTING_VALUE$' });
  });
  afterAll(() => emu.close());

  it('masks with it, and keeps the secret when it comes back', async () => {
    const authorization = await loginToken(emu);
    const headers = { authorization, 'content-type': 'application/json' };
    const config = {
      hostname: 'h',
      port: 5432,
      databaseName: 'd',
      authenticationType: 'MASTER',
      username: 'u',
      password: 'pw-1',
    };
    const created = await fetch(`${emu.url}/api/v3/catalog`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ entityType: 'source', name: 'pg', type: 'POSTGRES', config }),
    });
    const source = (await created.json()) as { id: string; config: { password: string } };
    expect(source.config.password).toBe('$DREMIO_EXISTING_VALUE$');
    const updated = await fetch(`${emu.url}/api/v3/catalog/${source.id}`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ ...source, config: { ...source.config, fetchSize: 10 } }),
    });
    expect(updated.status).toBe(200);
    expect(emu.catalog.store.sourceConfig('pg')?.password).toBe('pw-1');
  });
});
