// `dlake version`: what `dlake --version` prints (as `gh version` and `kubectl version` exist beside their flags),
// or, with `-o json` (or ndjson), the same facts as one object for scripts. Needs no profile, store or network.
import { versionInfo, versionText } from '../build-info.js';
import type { Declare } from './define.js';

export const register: Declare = (version, rt) => {
  version.addHelpText(
    'after',
    `
Examples:
  $ dlake version
  $ dlake version -o json`,
  );
  version.action(() => {
    const { output, json } = version.optsWithGlobals() as { output?: string; json?: boolean };
    const format = json ? 'json' : (output ?? rt.world.env.DLAKE_OUTPUT?.toLowerCase());
    const info = versionInfo();
    const text =
      format === 'json'
        ? `${JSON.stringify(info, null, 2)}\n`
        : format === 'ndjson'
          ? `${JSON.stringify(info)}\n`
          : versionText();
    rt.world.streams.stdout.write(text);
  });
};
