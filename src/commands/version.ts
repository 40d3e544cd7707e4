// `dlake version`: what `dlake --version` prints (as `gh version` and `kubectl version` exist beside their flags),
// or, with `-o json` (or ndjson), the same facts as one object for scripts. Needs no profile, store or network.
import { versionInfo, versionText } from '../build-info.js';
import type { OutputFormat } from '../global-options.js';
import type { Declare } from './define.js';

export const register: Declare = (version, rt) => {
  version.addHelpText(
    'after',
    `
Examples:
  $ dlake version
  $ dlake version -o json`,
  );
  version.action(async () => {
    const { output, json, query } = version.optsWithGlobals() as {
      output?: OutputFormat;
      json?: boolean;
      query?: string;
    };
    const format = json ? 'json' : (output ?? (rt.world.env.DLAKE_OUTPUT?.toLowerCase() as OutputFormat));
    if (!query && (format === undefined || format === 'table')) {
      rt.world.streams.stdout.write(versionText());
      return;
    }
    // Any other format, or --query, as every command renders its answer (the text above is the table's).
    const [{ render }, { theme }] = await Promise.all([
      import('../output/render.js'),
      import('../output/color.js'),
    ]);
    const out = await render(
      { data: versionInfo() },
      { format: format ?? 'table', query, theme: await theme(false) },
    );
    rt.world.streams.stdout.write(out.stdout);
  });
};
