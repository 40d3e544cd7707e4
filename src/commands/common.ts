// Small pieces shared by command files: help examples, refusal of secrets on argv, --data parsing.
import { readFileSync } from 'node:fs';
import { Option } from 'commander';
import { UsageError } from '../errors.js';
import { readStdin } from '../output/prompt.js';

/** The "Examples:" block of a command's help. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}

/**
 * A hidden option that refuses a secret given on the command line: argv ends up in shell history and
 * process lists. The message never repeats the value.
 */
export function refuseSecretFlag(flags: string, alternative: string): Option {
  const name = flags.split(' ')[0];
  return new Option(flags).hideHelp().argParser(() => {
    throw new UsageError(`${name} is not accepted: secrets are never taken from the command line`, {
      hint: `use ${alternative} (or the interactive prompt)`,
    });
  });
}

/** `--data JSON|@file|@-`: the JSON body of a request, parsed (malformed JSON is a usage error). */
export async function readJsonArgument(value: string, stdin: NodeJS.ReadStream, what = '--data'): Promise<unknown> {
  let text = value;
  let source = what;
  if (value === '@-') {
    text = await readStdin(stdin);
    source = `${what} (standard input)`;
  } else if (value.startsWith('@')) {
    const file = value.slice(1);
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new UsageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    source = `${what} (${file})`;
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${source} is not valid JSON: ${(e as Error).message}`);
  }
}
