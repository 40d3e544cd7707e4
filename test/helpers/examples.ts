// The example command lines a user reads: every command's help (its Examples section, read from `dlake describe`
// and the root help), and the shell blocks of README.md and docs/guide.md, in the order the text gives them
// (test/e2e/examples.test.ts runs each against the emulator).

/** One example as printed, and where it was read. */
export interface Example {
  /** Where it is printed: `dlake job list --help`, `README.md:123`. */
  where: string;
  /** The line as printed, its trailing comment included (the comment may say what exit code to expect). */
  printed: string;
  /** What a user types: the line without its trailing comment. */
  command: string;
  /**
   * Of a document's example: the command of the first example in its code block. A block that opens with a
   * login goes on in that session: after the hosted edition's login, `dlake whoami` is the hosted edition's.
   */
  blockStart?: string;
}

/** A line without its trailing `# comment` (a `#` outside quotes, after a blank). */
export function withoutComment(line: string): string {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '\\') i++;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i).trimEnd();
  }
  return line.trimEnd();
}

/**
 * The dlake command lines of a Markdown document: each line of a `sh` block that runs dlake (a block that starts
 * with `set -e` is a script: one example, run whole), and each `$ dlake …` line of a `text` block (a transcript),
 * in the document's order.
 */
export function documentExamples(markdown: string, file: string): Example[] {
  const out: Example[] = [];
  const lines = markdown.split('\n');
  let block: string | undefined;
  /** Inside a script (a block that starts `set -e`): run whole, as one example. */
  let script = false;
  /** The command of the block's first example. */
  let blockStart: string | undefined;
  lines.forEach((line, i) => {
    const fence = /^```(\w*)\s*$/.exec(line);
    if (fence) {
      block = block === undefined ? fence[1] : undefined;
      script = false;
      blockStart = undefined;
      return;
    }
    if (block === 'sh' && script) return;
    if (block === 'sh' && /^set -e/.test(line)) {
      script = true;
      const end = lines.indexOf('```', i);
      const body = lines.slice(i, end).map((l) => withoutComment(l));
      out.push({
        where: `${file}:${i + 1}`,
        printed: lines.slice(i, end).join('\n'),
        command: body.join('\n'),
      });
      return;
    }
    if (block === 'sh' && /(^|[|(&;]\s*)(\w+=\S*\s+)*dlake\s/.test(line)) push(line, i);
    else if (block === 'text' && line.startsWith('$ dlake ')) push(line.slice(2), i);
  });
  function push(printed: string, index: number): void {
    const command = withoutComment(printed.trim());
    blockStart ??= command;
    out.push({ where: `${file}:${index + 1}`, printed: printed.trim(), command, blockStart });
  }
  return out;
}

/** The lines of a help text's `Examples:` section, each without its `  $ ` lead. */
export function helpExamples(help: string, where: string): Example[] {
  const section = help.split(/^Examples:$/m)[1]?.split(/\n\n/)[0] ?? '';
  return section
    .split('\n')
    .filter((l) => l.startsWith('  $ '))
    .map((l) => l.slice(4))
    .map((printed) => ({ where, printed, command: withoutComment(printed) }));
}

/**
 * The words of a command line that needs no shell (no pipe, redirection, substitution, variable, glob or
 * background job), as a shell would split them; undefined for one that needs a shell.
 */
export function plainWords(command: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) return undefined;
      word = (word ?? '') + command.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let text = '';
      for (i++; i < command.length && command[i] !== '"'; i++) {
        if (command[i] === '$' || command[i] === '`') return undefined;
        if (command[i] === '\\' && /["\\$`]/.test(command[i + 1] ?? '')) i++;
        text += command[i];
      }
      if (i >= command.length) return undefined;
      word = (word ?? '') + text;
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (/[|&;<>()$`*?[\]{}~\\]/.test(c) || (c === '=' && word !== undefined && words.length === 0)) {
      return undefined;
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}
