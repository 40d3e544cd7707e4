// `dlake mcp`: serve dlake's reading commands to an AI agent over the Model Context Protocol, on standard input
// and output (docs/agents.md). The SDK is loaded by this command alone.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { examples } from './common.js';
import { defineCommand, type OptionsOf } from './define.js';
import { repeatable, size } from './options.js';

/** The largest answer a tool sends, unless --max-result-bytes says otherwise. */
const DEFAULT_MAX_RESULT_BYTES = 200_000;
const MIN_RESULT_BYTES = 1_000;

const declaration = (mcp: Command) =>
  mcp
    .description(
      'Serve dlake to an AI agent as a Model Context Protocol server on standard input and output (read-only unless --allow-writes)',
    )
    .option(
      '-p, --profile <name>',
      'a profile the agent may use; repeatable, the first is the default (default: the current profile alone)',
      repeatable('--profile'),
    )
    .option('--allow-writes', 'let run_sql run statements that change data or the catalog')
    .option(
      '--allow-path <path>',
      'only this space or folder (Sales, Sales.curated) for run_sql, get_entity, get_lineage and search_catalog; repeatable',
      repeatable('--allow-path'),
    )
    .option(
      '--max-result-bytes <size>',
      'cut each tool answer at this size, e.g. 1MB (default 200KB)',
      size('--max-result-bytes'),
    )
    .addHelpText(
      'after',
      examples(
        'dlake mcp                                   # the current profile, read-only',
        'dlake mcp --profile prod --profile staging  # two profiles; prod is the default',
        'dlake mcp --allow-path Sales --allow-path Lake.curated   # nothing else of the catalog',
        'claude mcp add dlake -- dlake mcp --profile prod',
      ),
    );

export const register = defineCommand(
  declaration,
  async (ctx: Context, opts: OptionsOf<typeof declaration>) => {
    const [{ serve }, { AllowedPaths, parseAllowedPath }] = await Promise.all([
      import('../mcp/server.js'),
      import('../mcp/allow-path.js'),
    ]);
    const allowPaths = new AllowedPaths((opts.allowPath ?? []).map(parseAllowedPath));
    const maxResultBytes = opts.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
    // Below this even an error, a profile list or one row would not fit.
    if (maxResultBytes < MIN_RESULT_BYTES) throw new UsageError('--max-result-bytes must be at least 1KB');
    await serve(ctx, {
      profiles: opts.profile ?? [],
      limits: { allowWrites: Boolean(opts.allowWrites), maxResultBytes, allowPaths },
    });
  },
);
