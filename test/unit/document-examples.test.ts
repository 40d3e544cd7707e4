// The examples read from a document keep the command their code block opens with: a block that opens with a login
// goes on in that session (test/e2e/examples.test.ts runs the block after the hosted edition's login against the
// hosted emulator, not only the lines that name it).
import { describe, expect, it } from 'vitest';
import { documentExamples, plainWords, redirectedLine } from '../helpers/examples.js';

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

describe('redirectedLine', () => {
  it('reads an echo of plain words piped in, standard input from a file and standard output to one', () => {
    expect(redirectedLine(`echo '{"entityType": "space"}' | dlake catalog create --file -`)).toEqual({
      words: ['dlake', 'catalog', 'create', '--file', '-'],
      input: '{"entityType": "space"}\n',
    });
    expect(redirectedLine('dlake login -p prod --token-stdin < pat.txt')).toEqual({
      words: ['dlake', 'login', '-p', 'prod', '--token-stdin'],
      inputFile: 'pat.txt',
    });
    expect(redirectedLine('dlake queue rules -o json > rules.json')).toEqual({
      words: ['dlake', 'queue', 'rules', '-o', 'json'],
      outputFile: 'rules.json',
    });
    expect(redirectedLine('dlake whoami')).toEqual({ words: ['dlake', 'whoami'] });
  });

  it('leaves every other shell to bash', () => {
    for (const line of [
      'echo "$PASSWORD" | dlake login -u ci-bot --password-stdin',
      'echo -n x | dlake sql -',
      'printf %s x | dlake sql -',
      'dlake job results ID --all -o ndjson | jq .name',
      'dlake job wait ID -q && echo done',
      'dlake sql x 2> err.txt',
      'dlake sql x >> out.txt',
      'dlake sql - <<< x',
      'source <(dlake completion bash)',
      'echo x | dlake sql - < file.sql',
      'TOKEN=$(dlake pat create ci-bot)',
      'dlake sql x > a > b',
    ])
      expect(redirectedLine(line), line).toBeUndefined();
    expect(plainWords('dlake sql x > out.txt')).toBeUndefined();
  });
});
