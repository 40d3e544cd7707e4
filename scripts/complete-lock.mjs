// Completes package-lock.json with the platform packages a partial registry mirror does not serve.
//
// Why: esbuild, rollup, biome and duckdb ship one optional package per platform, pinned to an exact
// version. A registry mirror that holds only some platforms makes `npm install` leave the others out of
// the lock, and `npm ci` then rejects the lock as out of sync ("Missing: @rollup/rollup-darwin-x64@").
// This adds each missing one as an optional entry, at the version its parent pins, restricted to its
// platform (os/cpu/libc read from its name), so `npm ci` skips it here and installs it where it runs.
//
// Run after `npm install` changes the lock: node scripts/complete-lock.mjs [LOCKFILE]
//
// The entries are written with their keys in the order npm itself writes them (`version`, then the rest
// alphabetically), so a later `npm install` on a fresh clone finds nothing to rewrite and `git status`
// stays clean (test/unit/complete-lock.test.ts).
import { readFileSync, writeFileSync } from 'node:fs';

const lockPath = process.argv[2] ?? new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const packages = lock.packages;

const OS = ['android', 'darwin', 'freebsd', 'linux', 'openbsd', 'openharmony', 'win32'];
const CPU = {
  'arm-eabi': 'arm',
  arm: 'arm',
  arm64: 'arm64',
  x64: 'x64',
  ia32: 'ia32',
  loong64: 'loong64',
  ppc64: 'ppc64',
  riscv64: 'riscv64',
  s390x: 's390x',
};

/** "@rollup/rollup-linux-arm64-musl" → {os: ["linux"], cpu: ["arm64"], libc: ["musl"]} */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const osIndex = parts.findIndex((part) => OS.includes(part));
  if (osIndex < 0) return undefined;
  const rest = parts.slice(osIndex + 1);
  const cpu = CPU[rest.slice(0, 2).join('-')] ?? CPU[rest[0]];
  if (!cpu) return undefined;
  const platform = { os: [parts[osIndex]], cpu: [cpu] };
  if (rest.includes('musl') || rest.includes('musleabihf')) platform.libc = ['musl'];
  else if (rest.includes('gnu') || rest.includes('gnueabihf')) platform.libc = ['glibc'];
  return platform;
}

/** npm's key order for such an entry: `version` first, then the other keys alphabetically. */
function inNpmOrder(entry) {
  const { version, ...rest } = entry;
  return { version, ...Object.fromEntries(Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : 1))) };
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const childPath = `${path ? `${path}/` : ''}node_modules/${name}`;
    if (packages[childPath] || packages[`node_modules/${name}`]) continue;
    const platform = platformOf(name);
    if (!platform || !/^\d+\.\d+\.\d+/.test(version)) continue;
    packages[`node_modules/${name}`] = inNpmOrder({
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      ...platform,
    });
    added += 1;
  }
}

// Entries this script wrote earlier (platform-restricted, optional, no tarball here) get npm's key order too.
for (const [path, entry] of Object.entries(packages)) {
  if (entry.os && entry.optional && !entry.integrity && !entry.resolved) packages[path] = inNpmOrder(entry);
}

lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lock: ${added} platform package(s) added`);
