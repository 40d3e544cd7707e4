// What a command that makes one plain-HTTP request loads at start: none of the Node modules dlake does not
// need for it (see scripts/build-plugins.mjs and the Benchmarks section of the README). Node records each
// built-in module it loads in process.moduleLoadList; a preload script writes it out at exit.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv } from '../helpers/dlake.js';
import { type Fixture, startFixture } from '../helpers/fixture.js';

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
  expect((await fx.login()).code).toBe(0);
});
afterAll(() => fx.close());

/** The built-in modules a dlake run loaded, by name. */
async function builtinsLoaded(args: string[]): Promise<string[]> {
  const out = join(fx.configDir, 'modules.txt');
  const preload = join(fx.configDir, 'record-modules.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));`,
  );
  const child = spawn(process.execPath, ['-r', preload, BIN, ...args], {
    env: cleanEnv({ DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const code = await new Promise((resolve) => child.on('close', resolve));
  expect(code).toBe(0);
  return readFileSync(out, 'utf8')
    .split('\n')
    .filter((m) => m.startsWith('NativeModule '))
    .map((m) => m.slice('NativeModule '.length));
}

describe('start of a command that makes one request with a cached token', () => {
  it('loads no HTTP/2, TLS, crypto or child process modules', async () => {
    const loaded = await builtinsLoaded(['api', 'GET', '/api/v3/catalog']);
    expect(loaded).toContain('http');
    for (const name of ['http2', 'tls', 'crypto', 'child_process', 'dgram', 'zlib'])
      expect(loaded, name).not.toContain(name);
  });
});
