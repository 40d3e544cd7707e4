// docs/commands.md is generated from the command tree: it fails while the committed file is stale, so no command,
// option or example can change without the reference following.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS_DOC, commandsDoc } from '../../scripts/commands-doc.js';

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
});
