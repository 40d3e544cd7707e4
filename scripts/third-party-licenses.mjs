// Writes the licence texts of the packages bundled into dist/ (their MIT/ISC/Apache terms ask that the
// notice travel with the code), from esbuild's metafile: every input under node_modules/ names a package.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The package folders (node_modules/x or node_modules/@s/x) whose files the bundle holds. */
function bundledPackages(metafile) {
  const dirs = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) dirs.add(m[1]);
  }
  return [...dirs];
}

export function writeThirdPartyLicenses(metafiles, outFile) {
  const dirs = [...new Set(metafiles.flatMap(bundledPackages))];
  const entries = dirs
    .map((dir) => {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
      const text = file && existsSync(join(dir, file)) ? readFileSync(join(dir, file), 'utf8').trim() : '';
      return { name: pkg.name, version: pkg.version, license: pkg.license ?? 'see the package', text };
    })
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  const body = entries
    .map((e) => `${e.name}@${e.version} (${e.license})\n\n${e.text || '(no licence file in the package)'}`)
    .join(`\n\n${'-'.repeat(78)}\n\n`);
  writeFileSync(
    outFile,
    `dlake bundles the following packages into dist/.\n\n${'-'.repeat(78)}\n\n${body}\n`,
  );
}
