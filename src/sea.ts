// The entry of the single executable (scripts/build-sea.mjs): the whole CLI as one script, since a single
// executable application runs one script and requires only Node's built-in modules. No launcher and no
// code cache of dlake's own: the executable carries V8's code cache of this script, made when it was built.
// It is built for linux-x64, where the credential store is the Secret Service, asked in-process over D-Bus
// (src/config/secret-service.ts) as the npm package asks it: no binding to carry, no helper to run.
void import('./cli.js').then(({ main }) => main(process.argv));
