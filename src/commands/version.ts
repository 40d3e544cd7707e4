// `dlake version`: the version, as `dlake --version` prints it (as `gh version` and `kubectl version` exist
// beside their flags). Needs no profile, store or network.
import type { Declare } from './define.js';

export const register: Declare = (version, rt) => {
  version.action(() => {
    rt.world.streams.stdout.write(`${__DLAKE_VERSION__}\n`);
  });
};
