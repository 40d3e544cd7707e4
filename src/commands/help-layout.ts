// How help is laid out, as gh and kubectl lay it out: the root's help lists the commands first and the global
// options after them by name only (`dlake help global-options` says what each does), whichever way it is asked
// for (`dlake`, `dlake --help`, `dlake help`); and no line is wider than the terminal (80 columns when not on
// one): commander wraps what it writes, and an example line too wide is broken as a shell would take it.
import { type CommandUnknownOpts, Help } from '@commander-js/extra-typings';
import { GLOBAL_OPTIONS } from '../global-options.js';
import { wrapWords } from '../output/width.js';

/** The width help is laid out for when stdout is not a terminal: commander's own default. */
export const HELP_WIDTH = 80;

/**
 * The root's help shows no option descriptions (they follow the commands, by name) and names each command
 * alone: the same list whether or not the commands' modules were loaded. Only the help text is laid out so:
 * completion and `dlake help global-options` read the root's options as they are.
 */
export function rootHelpSettings() {
  return {
    // Commander leaves a description column narrower than 40 unwrapped (past the terminal's edge): wrap it.
    minWidthToWrap: 20,
    formatHelp(this: Help, cmd: CommandUnknownOpts, helper: Help): string {
      if (cmd.parent) return Help.prototype.formatHelp.call(this, cmd, helper);
      const root = Object.create(helper) as Help;
      root.visibleOptions = () => [];
      root.subcommandTerm = (sub) => sub.name();
      return Help.prototype.formatHelp.call(this, cmd, root);
    },
  };
}

/** What the root's help says after its commands: examples, the global options by name, where to go next. */
export function rootHelpEnd(width: number): string {
  const names = [
    ...GLOBAL_OPTIONS.map((o) => o.flags.replace(/ <[^>]+>$/, '')),
    '-V, --version',
    '-h, --help',
  ].map((name, i, all) => (i < all.length - 1 ? `${name};` : name));
  const para = (text: string, indent = '') =>
    wrapWords(text, width - indent.length)
      .map((l) => indent + l)
      .join('\n');
  return [
    '',
    'Examples:',
    '  $ dlake login --url https://lake.example.com -u alice',
    '  $ dlake catalog ls',
    '  $ dlake sql "SELECT * FROM Samples.sales.\\"2024.csv\\"" --out sales.csv',
    '  $ DLAKE_CLIENT_ID=… DLAKE_CLIENT_SECRET=… dlake job export ID --out rows.csv',
    '',
    para('Global options (`dlake help global-options` says what each does):'),
    para(names.join(' '), '  '),
    '',
    para(
      "Run `dlake COMMAND --help` for a command's options and examples, `dlake help exit-codes` for what each exit code means, `dlake doctor` when dlake cannot reach the service.",
    ),
  ].join('\n');
}

/**
 * Help text as written to a terminal of `width` columns: an example line (`  $ dlake …`) wider than that is
 * broken at spaces outside quotes into lines ending in ` \` (so that it still pastes as one command), its
 * comment moved above it; every other line is commander's, already wrapped.
 */
export function fitExamples(text: string, width: number): string {
  if (!text.includes('  $ ')) return text;
  return text
    .split('\n')
    .flatMap((line) =>
      line.startsWith('  $ ') && [...line].length > width ? breakExample(line, width) : [line],
    )
    .join('\n');
}

function breakExample(line: string, width: number): string[] {
  const words = shellWords(line.slice(4));
  const comment = words.at(-1)?.startsWith('#') ? words.pop() : undefined;
  // First, the comment closer: one space before its `#` instead of a column's alignment.
  const closer = `  $ ${words.join(' ')}${comment ? `  ${comment}` : ''}`;
  if ([...closer].length <= width) return [closer];
  const out: string[] = [];
  for (const word of comment?.slice(1).trim().split(' ') ?? []) {
    const last = out.at(-1);
    if (last && last.length + 1 + word.length <= width) out[out.length - 1] = `${last} ${word}`;
    else out.push(`  # ${word}`);
  }
  let current = '  $';
  for (const word of words) {
    // Room for the ` \` that ends a broken line.
    if (current.length + 1 + word.length + 2 > width && current.trim() !== '$' && current.trim() !== '') {
      out.push(`${current} \\`);
      current = '     ';
      current += word;
    } else current += ` ${word}`;
  }
  out.push(current);
  return out;
}

/** The words of a command line, split at spaces outside quotes; a `# comment` at the end is one word. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && quote !== "'") {
      word += c + (text[i + 1] ?? '');
      i++;
    } else if (quote) {
      word += c;
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') {
      quote = c;
      word += c;
    } else if (c === '#' && word === '' && /\s$/.test(text.slice(0, i))) {
      words.push(text.slice(i).trim());
      return words;
    } else if (c === ' ') {
      if (word) words.push(word);
      word = '';
    } else word += c;
  }
  if (word) words.push(word);
  return words;
}
