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
  // The Apache License's terms are the same text in each Apache-2.0 package: given once, after the packages,
  // each package keeping what follows the terms (its appendix or notice); packages whose licence texts are the
  // same word for word are listed together above one copy.
  const TERMS_END = 'END OF TERMS AND CONDITIONS';
  let apacheTerms;
  const groups = new Map();
  for (const e of entries) {
    let text = e.text || '(no licence file in the package)';
    const end = text.indexOf(TERMS_END);
    if (/Apache License/.test(text) && /Version 2\.0/.test(text) && end >= 0) {
      apacheTerms ??= text.slice(0, end + TERMS_END.length);
      const rest = text.slice(end + TERMS_END.length).trim();
      text = `The Apache License 2.0: its terms are given once, at the end of this file.${rest ? `\n\n${rest}` : ''}`;
    }
    const key = text.replace(/\s+/g, ' ');
    const group = groups.get(key) ?? { names: [], text };
    group.names.push(`${e.name}@${e.version} (${e.license})`);
    groups.set(key, group);
  }
  const parts = [...groups.values()].map((g) => `${g.names.join('\n')}\n\n${g.text}`);
  if (apacheTerms) parts.push(`The Apache License 2.0\n\n${apacheTerms}`);
  const body = parts.join(`\n\n${'-'.repeat(78)}\n\n`);
  writeFileSync(
    outFile,
    `dlake bundles the following packages into dist/.\n\n${'-'.repeat(78)}\n\n${body}\n`,
  );
}
