// docs/commands.md, the command reference, generated from the commander tree: every command's usage,
// description, arguments, options and examples exactly as `dlake COMMAND --help` prints them (without the
// global options, listed once at the top); and the exit-code tables of the README and the docs, from
// src/errors.ts; and the command manifest the launcher reads (src/commands/manifest.json). Run `npm run docs`
// after changing commands, options or exit codes; test/unit/commands-doc.test.ts fails while a committed file is
// stale.

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
    "Accepted by every command, before or after its name; `dlake help global-options` lists them, and each command's",
    'help ends with a line pointing there.',
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

/**
 * The command manifest (oclif's model): what is known of the commands before any command module is loaded,
 * generated from the registry. The launcher reads the groups' names to name a code cache (src/boot.ts).
 */
export const COMMAND_MANIFEST = resolve(root, 'src/commands/manifest.json');

export async function commandManifest(): Promise<string> {
  const { GROUPS } = await import('../src/commands/registry.js');
  const manifest = {
    '//': 'Generated from src/commands/registry.ts by `npm run docs` (scripts/commands-doc.ts); do not edit.',
    groups: GROUPS.map((g) => g.name),
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** The documents that hold the exit-code table, between EXIT_CODES_BEGIN and EXIT_CODES_END. */
export const EXIT_CODE_DOCS = ['README.md', 'docs/cli-contract.md', 'docs/architecture.md'].map((f) =>
  resolve(root, f),
);
const EXIT_CODES_BEGIN = '<!-- exit codes: generated from src/errors.ts by `npm run docs`; do not edit -->';
const EXIT_CODES_END = '<!-- end of exit codes -->';

/** `text` with its exit-code table as src/errors.ts defines the codes; an error if it has no place for one. */
export async function withExitCodes(text: string, file: string): Promise<string> {
  const { exitCodes } = await import('../src/errors.js');
  const begin = text.indexOf(EXIT_CODES_BEGIN);
  const end = text.indexOf(EXIT_CODES_END, begin);
  if (begin < 0 || end < 0) throw new Error(`${file} has no exit-code table between its markers`);
  const table = [
    '| code | meaning |',
    '|---|---|',
    ...exitCodes().map(({ code, meaning }) => `| ${code} | ${meaning} |`),
  ];
  return `${text.slice(0, begin)}${[EXIT_CODES_BEGIN, '', ...table, ''].join('\n')}\n${text.slice(end)}`;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const { writeFileSync } = await import('node:fs');
  writeFileSync(COMMANDS_DOC, await commandsDoc());
  process.stdout.write('wrote docs/commands.md\n');
  writeFileSync(COMMAND_MANIFEST, await commandManifest());
  process.stdout.write('wrote src/commands/manifest.json\n');
  for (const file of EXIT_CODE_DOCS) {
    writeFileSync(file, await withExitCodes(readFileSync(file, 'utf8'), file));
    process.stdout.write(`wrote the exit codes of ${file.slice(root.length + 1)}\n`);
  }
}
