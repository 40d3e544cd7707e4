// The README is the manual: every command of the tree appears in it as a `dlake …` line, and every option a
// command shows in its help is mentioned, so nothing can be added to the tree without its documentation.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fullTree } from '../../src/completion/generate.js';
import { allCommands, type CommandSpec, completionModel } from '../../src/completion/model.js';

const README = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');

let leaves: CommandSpec[];

beforeAll(async () => {
  const { root } = completionModel(await fullTree());
  leaves = [...allCommands(root)].filter((c) => c.key && !c.secondary && c.subcommands.length === 0);
});

/** `dlake catalog ls` followed by an argument, an option, the end of the line or of a code span. */
const mentioned = (key: string): boolean => new RegExp(`dlake ${key}(?=[\\s\`|)]|$)`, 'm').test(README);

describe('README', () => {
  it('shows every command of the tree', () => {
    expect(leaves.length).toBeGreaterThan(40);
    expect(leaves.map((c) => c.key).filter((key) => !mentioned(key))).toEqual([]);
  });

  it('mentions every option a command shows in its help', () => {
    const missing: string[] = [];
    for (const command of leaves) {
      for (const option of command.options) {
        if (option.hidden || option.names.includes('--help')) continue;
        const long = option.names.find((n) => n.startsWith('--')) ?? option.names[0]!;
        if (!README.includes(long)) missing.push(`${command.key} ${long}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
