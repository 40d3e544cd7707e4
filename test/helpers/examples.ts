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

type Token = string | { op: '|' | '<' | '>' };

/**
 * A command line split as a shell splits it, into words and, with `operators`, the pipe and the two plain
 * redirections (`|`, `<`, `>`, each alone and apart from the words beside it); undefined for a line that needs
 * more of a shell (a substitution, a variable, a glob, a background job, `2>`, `>>`, `<<`, `||`…).
 */
function shellTokens(command: string, operators: boolean): Token[] | undefined {
  const tokens: Token[] = [];
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
      if (word !== undefined) tokens.push(word);
      word = undefined;
    } else if (operators && (c === '|' || c === '<' || c === '>')) {
      // Apart from the words beside it (`2>` is another redirection) and alone (`||`, `>>`, `<<`, `<(`…).
      if (word !== undefined || !/\s/.test(command[i + 1] ?? '')) return undefined;
      tokens.push({ op: c });
    } else if (/[|&;<>()$`*?[\]{}~\\]/.test(c) || (c === '=' && word !== undefined && tokens.length === 0)) {
      return undefined;
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) tokens.push(word);
  return tokens;
}

/**
 * The words of a command line that needs no shell (no pipe, redirection, substitution, variable, glob or
 * background job), as a shell would split them; undefined for one that needs a shell.
 */
export function plainWords(command: string): string[] | undefined {
  return shellTokens(command, false) as string[] | undefined;
}

/** A command line of one command whose only shell is what it reads on standard input or where its output goes. */
export interface RedirectedLine {
  words: string[];
  /** Standard input: what an `echo` of plain words piped into the command prints. */
  input?: string;
  /** Standard input read from this file (`< FILE`). */
  inputFile?: string;
  /** Standard output written to this file (`> FILE`). */
  outputFile?: string;
}

/**
 * A command line that is one command with at most an `echo` of plain words piped into it, its standard input
 * from a file (`< FILE`) and its standard output to one (`> FILE`); undefined for any other.
 */
export function redirectedLine(command: string): RedirectedLine | undefined {
  const tokens = shellTokens(command, true);
  if (!tokens) return undefined;
  const pipe = tokens.findIndex((t) => typeof t !== 'string' && t.op === '|');
  const line: RedirectedLine = { words: [] };
  let rest = tokens;
  if (pipe >= 0) {
    const echo = tokens.slice(0, pipe);
    if (
      echo[0] !== 'echo' ||
      !echo.every((t) => typeof t === 'string') ||
      (echo[1] as string)?.startsWith('-')
    )
      return undefined;
    line.input = `${echo.slice(1).join(' ')}\n`;
    rest = tokens.slice(pipe + 1);
  }
  for (let i = 0; i < rest.length; i++) {
    const t = rest[i]!;
    if (typeof t === 'string') {
      line.words.push(t);
      continue;
    }
    const file = rest[++i];
    if (typeof file !== 'string') return undefined;
    if (t.op === '<' && line.input === undefined && line.inputFile === undefined) line.inputFile = file;
    else if (t.op === '>' && line.outputFile === undefined) line.outputFile = file;
    else return undefined;
  }
  return line.words.length ? line : undefined;
}
