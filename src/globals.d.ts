/** The package version, inlined by the build (scripts/build.mjs) and by vitest's `define`. */
declare const __DLAKE_VERSION__: string;
/** A hash of dist/cli.cjs, inlined into dist/boot.cjs by the build: the key of its code cache. */
declare const __DLAKE_BUILD_ID__: string;
/** Where the build came from (commit, its date) and how it is packaged, inlined by the build (src/build-info.ts). */
declare const __DLAKE_BUILD__: { commit?: string; date?: string; kind: string };
