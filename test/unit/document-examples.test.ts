// The examples read from a document keep the command their code block opens with: a block that opens with a login
// goes on in that session (test/e2e/examples.test.ts runs the block after the hosted edition's login against the
// hosted emulator, not only the lines that name it).
import { describe, expect, it } from 'vitest';
import { documentExamples } from '../helpers/examples.js';

const LOGIN = 'dlake login --url https://api.dremio.cloud --project-id P --token-stdin < pat.txt';

const DOC = [
  'First contact:',
  '```sh',
  LOGIN,
  'dlake whoami            # edition cloud',
  'dlake catalog ls',
  '```',
  'A transcript:',
  '```text',
  '$ dlake whoami',
  'profile default',
  '$ dlake catalog ls',
  '```',
].join('\n');

describe('documentExamples', () => {
  it("gives each example its block's first command", () => {
    expect(documentExamples(DOC, 'doc.md').map((e) => [e.where, e.command, e.blockStart])).toEqual([
      ['doc.md:3', LOGIN, LOGIN],
      ['doc.md:4', 'dlake whoami', LOGIN],
      ['doc.md:5', 'dlake catalog ls', LOGIN],
      ['doc.md:9', 'dlake whoami', 'dlake whoami'],
      ['doc.md:11', 'dlake catalog ls', 'dlake whoami'],
    ]);
  });
});
