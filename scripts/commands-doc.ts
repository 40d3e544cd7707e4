// docs/commands.md, the command reference, generated from the commander tree: every command's usage,
// description, arguments, options and examples exactly as `dlake COMMAND --help` prints them (without the
// global options, listed once at the top). Run `npm run docs` after changing commands or options;
// test/unit/commands-doc.test.ts fails while the committed file is stale.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CommandUnknownOpts as Command } from '@commander-js/extra-typings';

const root = resolve(import.meta.dirname, '..');
export const COMMANDS_DOC = resolve(root, 'docs/commands.md');

// Under tsx the tree still needs the version the build inlines.
const { version } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
(globalThis as { __DLAKE_VERSION__?: string }).__DLAKE_VERSION__ ??= version;

/** What `cmd --help` prints, with the text added after it (examples), at a fixed width and without colour. */
async function helpText(cmd: Command): Promise<string> {
  const { helpAfter } = await import('../src/describe/model.js');
  cmd.configureHelp({ ...cmd.configureHelp(), helpWidth: 110, showGlobalOptions: false });
  return (cmd.helpInformation() + helpAfter(cmd)).replace(/\u001b\[[0-9;]*m/g, '').trimEnd();
}

/** The whole reference, from a root on which every group is registered. */
export async function commandsDoc(): Promise<string> {
  const { fullTree } = await import('../src/runtime.js');
  const { GROUPS } = await import('../src/commands/registry.js');
  const { runnable } = await import('../src/describe/model.js');
  const program = await fullTree();
  const out: string[] = [
    '# Command reference',
    '',
    '<!-- Generated from the command tree by `npm run docs` (scripts/commands-doc.ts); do not edit by hand. -->',
    '',
    "Every command with its options and examples, as `dlake COMMAND --help` prints them. The README's tour and",
    'docs/cli-contract.md say how the commands fit together and what scripts may rely on.',
    '',
    '## Global options',
    '',
    'Accepted by every command, before or after its name.',
    '',
    '```text',
    await helpText(program),
    '```',
  ];
  let topic = '';
  for (const group of GROUPS) {
    const cmd = program.commands.find((c) => c.name() === group.name);
    if (!cmd) continue;
    if (group.topic !== topic) {
      topic = group.topic;
      out.push('', `## ${topic}`);
    }
    for (const [path, leaf] of runnable(cmd, [group.name])) {
      out.push('', `### dlake ${path.join(' ')}`, '', '```text', await helpText(leaf), '```');
    }
  }
  return `${out.join('\n')}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const { writeFileSync } = await import('node:fs');
  writeFileSync(COMMANDS_DOC, await commandsDoc());
  process.stdout.write('wrote docs/commands.md\n');
}
