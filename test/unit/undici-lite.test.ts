// src/api/undici-lite.ts imports four of undici's internal modules instead of the package (a faster start).
// Those paths are not undici's public API: this test fails the day an undici the lock allows moves them,
// stops exporting what dlake uses, or closes its internals off with an `exports` map.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Agent, EnvHttpProxyAgent } from '../../src/api/undici-lite.js';

const require = createRequire(import.meta.url);
const undiciDir = join(require.resolve('undici/package.json'), '..');
const undiciPkg = JSON.parse(readFileSync(join(undiciDir, 'package.json'), 'utf8'));
const lite = readFileSync(join(import.meta.dirname, '../../src/api/undici-lite.ts'), 'utf8');
/** The internal modules undici-lite imports, as written there ('undici/lib/api/index.js', …). */
const internals = [...lite.matchAll(/^import \w+ from '(undici\/lib\/[^']+)';$/gm)].map((m) => m[1]!);

describe('undici-lite: the undici internals dlake imports', () => {
  it('imports the four modules it was written against', () => {
    expect(internals).toEqual([
      'undici/lib/api/index.js',
      'undici/lib/dispatcher/agent.js',
      'undici/lib/dispatcher/dispatcher.js',
      'undici/lib/dispatcher/env-http-proxy-agent.js',
    ]);
  });

  it('runs against the undici version the lock pins', () => {
    const lock = JSON.parse(readFileSync(join(import.meta.dirname, '../../package-lock.json'), 'utf8'));
    expect(undiciPkg.version).toBe(lock.packages['node_modules/undici'].version);
  });

  it('finds undici without an exports map that would hide its lib/ files', () => {
    expect(undiciPkg.exports).toBeUndefined();
    for (const path of internals) expect(() => require.resolve(path), path).not.toThrow();
  });

  it("uses the modules undici's own entry uses for the same classes", () => {
    // If undici moves a class, its index.js stops requiring it from there.
    const index = readFileSync(join(undiciDir, 'index.js'), 'utf8');
    for (const path of internals) {
      const relative = `./${path.replace(/^undici\//, '').replace(/(\/index)?\.js$/, '')}`;
      expect(index, relative).toContain(`require('${relative}')`);
    }
    expect(index).toContain('Object.assign(Dispatcher.prototype, api)');
  });

  it('gives the classes and the request API dlake calls', () => {
    expect(Agent).toBe(require('undici').Agent);
    expect(EnvHttpProxyAgent).toBe(require('undici').EnvHttpProxyAgent);
    const agent = new Agent();
    for (const method of ['request', 'stream', 'dispatch', 'close', 'destroy'])
      expect(typeof (agent as unknown as Record<string, unknown>)[method], method).toBe('function');
    return agent.close();
  });
});

// scripts/build.mjs bundles a stand-in for undici's HTTP/2 client (loading it costs node:http2, node:tls
// and node:crypto at every start). That is only right while undici never reaches it for dlake's requests.
describe('the bundle leaves out undici HTTP/2 client', () => {
  const source = (path: string): string => readFileSync(join(undiciDir, path), 'utf8');

  it('undici picks its HTTP/2 client only for a socket that negotiated h2', () => {
    const client = source('lib/dispatcher/client.js');
    expect(client).toContain("const connectH2 = require('./client-h2.js')");
    expect(client.match(/connectH2\(/g)).toHaveLength(1);
    expect(client).toMatch(/socket\.alpnProtocol === 'h2'\s*\?\s*connectH2\(client, socket\)/);
  });

  it('undici offers h2 only when allowH2 is set, and it is off by default', () => {
    const connect = source('lib/core/connect.js');
    expect(connect).toContain('allowH2 = allowH2 != null ? allowH2 : false');
    expect(connect).toContain("ALPNProtocols: allowH2 ? ['http/1.1', 'h2'] : ['http/1.1']");
  });

  it('dlake never sets allowH2 nor h2c', () => {
    const src = join(import.meta.dirname, '../../src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    for (const file of files)
      expect(readFileSync(join(src, file), 'utf8'), file).not.toMatch(/allowH2|useH2c/);
  });

  it('the stand-in is bundled (the path the build plugin matches exists)', async () => {
    // @ts-expect-error a plain .mjs build script, without declarations
    const { UNDICI_H2_CLIENT } = (await import('../../scripts/build-plugins.mjs')) as {
      UNDICI_H2_CLIENT: RegExp;
    };
    expect(UNDICI_H2_CLIENT.test(join(undiciDir, 'lib/dispatcher/client-h2.js'))).toBe(true);
  });
});
