// `dlake help TOPIC`: reference that is no command's own help. Each topic's text is generated from where the
// concept is defined, as the docs' copies of it are (scripts/commands-doc.ts).
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { exitCodes } from '../errors.js';

export const HELP_TOPICS: Record<string, { summary: string; text: (program: CommandUnknownOpts) => string }> =
  {
    'exit-codes': {
      summary: 'what each exit code means',
      text: () => {
        const rows = exitCodes().map(({ code, meaning }) => `  ${String(code).padEnd(5)}${meaning}`);
        return `Exit codes of dlake, the same for every command:\n\n${rows.join('\n')}\n`;
      },
    },
    'global-options': {
      summary: 'the options every command takes',
      text: globalOptionsHelp,
    },
  };

/**
 * The root's options (the global ones, src/global-options.ts), laid out as commander lays out a command's options:
 * printed here once rather than under every command's help (as `kubectl options` does).
 */
function globalOptionsHelp(program: CommandUnknownOpts): string {
  const helper = program.createHelp();
  helper.prepareContext({ helpWidth: program.configureOutput().getOutHelpWidth?.() });
  const options = helper.visibleOptions(program).filter((o) => o.long !== '--version' && o.long !== '--help');
  const width = Math.max(...options.map((o) => helper.displayWidth(helper.optionTerm(o))));
  const rows = options.map((o) =>
    helper.formatItem(helper.optionTerm(o), width, helper.optionDescription(o), helper),
  );
  return [
    'Global options: every command takes them, before or after its name',
    '(`dlake -o json user get bob` is `dlake user get bob -o json`).',
    '',
    ...rows,
    '',
    'Precedence: flag > environment > profile > default;',
    '`dlake whoami` shows where each setting in force came from.',
    '',
  ].join('\n');
}

/** The line every command's help ends with, pointing to the global options (not repeated in each). */
export const GLOBAL_OPTIONS_POINTER =
  'Global options (-o, --json, --query, -p, --url, …): `dlake help global-options`';
