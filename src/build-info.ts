// What `dlake --version` and `dlake version` say: the version, the build it came from and the Node.js that runs
// it (as gh prints its build date). Imported by the launcher (src/boot.ts), so it imports nothing.

/** Where this build came from: the commit and its date, and how it is packaged (inlined by the build scripts). */
interface Build {
  commit?: string;
  date?: string;
  kind: string;
}

/** The running build: what scripts/build.mjs or scripts/build-sea.mjs inlined; from the sources, none of that. */
function build(): Build {
  return typeof __DLAKE_BUILD__ === 'undefined' ? { kind: 'sources' } : __DLAKE_BUILD__;
}

/** The facts `dlake version -o json` prints, one key each (a build from the sources has no commit or date). */
export function versionInfo(): Record<string, string> {
  const { commit, date, kind } = build();
  return {
    version: __DLAKE_VERSION__,
    ...(commit === undefined ? {} : { commit }),
    ...(date === undefined ? {} : { date }),
    build: kind,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

/**
 * `dlake version 0.1.0 (commit 7414bab, 2026-11-27; npm package)` and `Node.js v20.20.2 on linux-x64`.
 * The version is the third word of the first line, for scripts that read it.
 */
export function versionText(): string {
  const info = versionInfo();
  const origin = [info.commit && `commit ${info.commit}`, info.date].filter(Boolean).join(', ');
  return (
    `dlake version ${info.version} (${origin ? `${origin}; ` : ''}${info.build})\n` +
    `Node.js ${info.node} on ${info.platform}\n`
  );
}
