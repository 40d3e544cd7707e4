// dist/keyring.cjs: the credential-store helper of the npm package (src/config/keyring-child.ts), which loads
// @napi-rs/keyring from the package's own dependencies (its prebuilt binary for the platform, installed by npm).
import { serveKeyring } from './keyring-child.js';

serveKeyring(() => ({ require: require.resolve('@napi-rs/keyring') }));
