// The entry of the single executable (scripts/build-sea.mjs): the whole CLI as one script, since a single
// executable application runs one script and requires only Node's built-in modules. No launcher and no
// code cache of dlake's own: the executable carries V8's code cache of this script, made when it was built.
// Started by dlake itself with DLAKE_KEYRING_HELPER set, it is the credential store's helper process instead
// (src/config/keyring.ts), with the binding the executable carries (src/config/keyring-sea.ts).
if (process.env.DLAKE_KEYRING_HELPER) {
  void Promise.all([import('./config/keyring-child.js'), import('./config/keyring-sea.js')]).then(
    ([{ serveKeyring }, { unpackSeaBinding }]) =>
      serveKeyring(() => ({ dlopen: unpackSeaBinding(process.env) }), process.env),
  );
} else {
  void import('./cli.js').then(({ main }) => main(process.argv));
}
