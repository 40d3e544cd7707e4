// docs/commands.md is generated from the command tree: it fails while the committed file is stale, so no command,
// option or example can change without the reference following.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  COMMAND_MANIFEST,
  COMMANDS_DOC,
  commandManifest,
  commandsDoc,
  EXIT_CODE_DOCS,
  withExitCodes,
} from '../../scripts/commands-doc.js';
import { ExitCode } from '../../src/errors.js';
import { runInProcess } from '../helpers/in-process.js';

describe('docs/commands.md', () => {
  it('is what the command tree generates (run `npm run docs` after changing a command)', async () => {
    const fresh = await commandsDoc();
    expect(fresh).toContain('### dlake catalog ls');
    expect(fresh).toContain('--out <file>');
    expect(
      readFileSync(COMMANDS_DOC, 'utf8') === fresh,
      'docs/commands.md is stale: run `npm run docs`',
    ).toBe(true);
  });

  it('src/commands/manifest.json is what the registry generates (run `npm run docs`)', async () => {
    const fresh = await commandManifest();
    expect(JSON.parse(fresh).groups).toContain('catalog');
    expect(
      readFileSync(COMMAND_MANIFEST, 'utf8') === fresh,
      'src/commands/manifest.json is stale: run `npm run docs`',
    ).toBe(true);
  });

  it('the exit-code tables of the README and the docs are those of src/errors.ts (run `npm run docs`)', async () => {
    for (const file of EXIT_CODE_DOCS) {
      const text = readFileSync(file, 'utf8');
      expect(text === (await withExitCodes(text, file)), `${file} is stale: run \`npm run docs\``).toBe(true);
      for (const code of Object.values(ExitCode))
        expect(text, file).toMatch(new RegExp(`^\\| ${code} \\| `, 'm'));
    }
    // A table changed by hand is found.
    const readme = readFileSync(EXIT_CODE_DOCS[0]!, 'utf8');
    const edited = readme.replace('| 8 | `plan --exit-code` found changes to make |\n', '');
    expect(await withExitCodes(edited, 'README.md')).toBe(readme);
    await expect(withExitCodes('no table', 'x.md')).rejects.toThrow('x.md has no exit-code table');
  });

  it('`dlake help exit-codes` prints every exit code with its meaning', async () => {
    const r = await runInProcess(['help', 'exit-codes']);
    expect(r.code, r.stderr).toBe(0);
    const codes = [...r.stdout.matchAll(/^ {2}(\d+) +\S/gm)].map((m) => Number(m[1]));
    expect(codes).toEqual(Object.values(ExitCode).sort((a, b) => a - b));
    expect(r.stdout).toContain('  8    `plan --exit-code` found changes to make\n');
    expect(r.stderr).toBe('');
  });
});
