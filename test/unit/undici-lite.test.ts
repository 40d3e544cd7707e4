// src/api/undici-lite.ts imports four of undici's internal modules instead of the package (a faster start).
// Those paths are not undici's public API: this test fails the day an undici the lock allows moves them,
// stops exporting what dlake uses, or closes its internals off with an `exports` map.
import { readFileSync } from 'node:fs';
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
