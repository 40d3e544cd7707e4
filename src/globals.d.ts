/** The package version, inlined by the build (scripts/build.mjs) and by vitest's `define`. */
declare const __DLAKE_VERSION__: string;
