// Shell completions: the committed scripts match the command tree, and they complete what the tree says,
// driven through real shells (bash always; zsh and fish when installed).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from '@commander-js/extra-typings';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPLETION_FILES, completionScript, SHELLS } from '../../src/completion/generate.js';
import { allCommands, type CompletionModel, completionModel } from '../../src/completion/model.js';
import { profileNames } from '../../src/completion/profiles.js';
import { fullTree } from '../../src/runtime.js';
import { BIN, cleanEnv } from '../helpers/dlake.js';

const ROOT = resolve(import.meta.dirname, '../..');
const script = (shell: keyof typeof COMPLETION_FILES) => resolve(ROOT, COMPLETION_FILES[shell]);
const installed = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

let program: Command;
let model: CompletionModel;
let configDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  program = await fullTree();
  model = completionModel(program);
  configDir = mkdtempSync(join(tmpdir(), 'dlake-completion-'));
  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({
      version: 1,
      currentProfile: 'prod',
      profiles: {
        prod: { url: 'https://lake.example.com' },
        staging: { url: 'https://staging.example.com' },
      },
    }),
  );
  env = cleanEnv({ DLAKE_CONFIG_DIR: configDir, DLAKE_NODE: process.execPath, DLAKE_BIN: BIN });
});
afterAll(() => rmSync(configDir, { recursive: true, force: true }));

/** Runs a shell script whose `dlake` is the built binary; stdin holds one command line per line. */
function runShell(shell: string, args: string[], lines: string[]): Map<string, string[]> {
  const r = spawnSync(shell, args, { cwd: ROOT, env, input: `${lines.join('\n')}\n`, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const results = new Map<string, string[]>();
  for (const out of r.stdout.split('\n').filter(Boolean)) {
    const [line, candidates = ''] = out.split('\t');
    results.set(line!, candidates.split(' ').filter(Boolean).sort());
  }
  return results;
}

// COMP_WORDS split on blanks; a line ending in a blank completes an empty word. bash itself also splits at
// '=', so `--output=j` is written here as `--output = j`, the words bash would hand over.
const BASH_DRIVER = `
source "$1"
dlake() { "$DLAKE_NODE" "$DLAKE_BIN" "$@"; }
while IFS= read -r line; do
  COMP_LINE=$line COMP_POINT=\${#line}
  read -ra COMP_WORDS <<<"$line"
  [[ $line == *' ' ]] && COMP_WORDS+=('')
  COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
  COMPREPLY=()
  _dlake
  printf '%s\\t%s\\n' "$line" "\${COMPREPLY[*]}"
done
`;

const bash = (lines: string[]) => runShell('bash', ['-c', BASH_DRIVER, 'driver', script('bash')], lines);

describe('committed completion scripts', () => {
  it.each(SHELLS)('completions for %s are up to date with the command tree', (shell) => {
    const committed = readFileSync(script(shell), 'utf8');
    const fresh = completionScript(shell, program);
    expect(committed === fresh, `${COMPLETION_FILES[shell]} is stale: run \`npm run completions\``).toBe(
      true,
    );
  });

  it('`dlake completion bash` prints the committed script', () => {
    const r = spawnSync(process.execPath, [BIN, 'completion', 'bash'], { env, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(readFileSync(script('bash'), 'utf8'));
  });
});

describe('bash completion', () => {
  it('completes commands, subcommands, aliases, enum values and profile names', () => {
    const got = bash([
      'dlake pro',
      'dlake profile ',
      'dlake profile r',
      'dlake -o ',
      'dlake --output = j',
      'dlake --profile ',
      'dlake -p s',
      'dlake profile use ',
      'dlake completion ',
      'dlake -o json profile ls --p',
      'dlake profile list ',
      'dlake source create lake --type ',
      'dlake source create lake --type PO',
      'dlake queue create --cpu-tier ',
    ]);
    expect(got.get('dlake pro')).toEqual(['profile', 'project']);
    expect(got.get('dlake profile ')).toEqual(['delete', 'list', 'set', 'show', 'use']);
    // Aliases are recognized, and offered only when no subcommand matches.
    expect(got.get('dlake profile r')).toEqual(['rm']);
    expect(got.get('dlake -o ')).toEqual(['csv', 'json', 'ndjson', 'table']);
    expect(got.get('dlake --output = j')).toEqual(['json']);
    expect(got.get('dlake --profile ')).toEqual(['prod', 'staging']);
    expect(got.get('dlake -p s')).toEqual(['staging']);
    expect(got.get('dlake profile use ')).toEqual(['prod', 'staging']);
    expect(got.get('dlake completion ')).toEqual(['bash', 'fish', 'zsh']);
    // The walk skips `-o json`, resolves the alias `ls`, and offers the global options there too.
    expect(got.get('dlake -o json profile ls --p')).toEqual(['--parallel', '--profile', '--project-id']);
    expect(got.get('dlake profile list ')).toEqual([]);
    // Closed sets that the README promises: source types and CPU tiers.
    expect(got.get('dlake source create lake --type ')).toContain('POSTGRES');
    expect(got.get('dlake source create lake --type ')).toHaveLength(17);
    expect(got.get('dlake source create lake --type PO')).toEqual(['POSTGRES']);
    expect(got.get('dlake queue create --cpu-tier ')).toEqual([
      'BACKGROUND',
      'CRITICAL',
      'HIGH',
      'LOW',
      'MEDIUM',
    ]);
  });

  it('offers the visible options of `login` and the global ones, never the hidden --password', () => {
    const got = bash(['dlake login --']).get('dlake login --')!;
    expect(got).toEqual(expect.arrayContaining(['--username', '--password-stdin', '--profile', '--output']));
    expect(got).not.toContain('--password');
  });

  it("offers every group's subcommands and every option's choices, across the whole tree", () => {
    const expected = new Map<string, string[]>();
    for (const cmd of allCommands(model.root)) {
      const words = cmd.key ? `dlake ${cmd.key} ` : 'dlake ';
      const subs = cmd.subcommands.filter((s) => !s.secondary).map((s) => s.name);
      if (subs.length) expected.set(words, subs.sort());
      // A command's own option shadows a global one of the same name (commander parses it as the command's).
      const own = new Set(cmd.options.flatMap((o) => o.names));
      const globals = cmd.key ? model.globals.filter((g) => !g.names.some((n) => own.has(n))) : [];
      for (const option of [...cmd.options, ...globals]) {
        if (Array.isArray(option.values) && !option.hidden) {
          expected.set(`${words}${option.names.at(-1)} `, [...option.values].sort());
        }
      }
    }
    const got = bash([...expected.keys()]);
    for (const [line, candidates] of expected) expect(got.get(line), line).toEqual(candidates);
  });
});

describe('dlake completion --list-profiles', () => {
  it('prints the profile names of the store, and nothing for a missing or corrupt file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dlake-profiles-'));
    try {
      const file = join(dir, 'config.json');
      expect(profileNames(file)).toEqual([]);
      writeFileSync(file, '{"profiles": ');
      expect(profileNames(file)).toEqual([]);
      writeFileSync(file, JSON.stringify({ profiles: { b: {}, a: {}, 'x$(touch pwned)': {} } }));
      expect(profileNames(file)).toEqual(['a', 'b']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const r = spawnSync(process.execPath, [BIN, 'completion', '--list-profiles'], { env, encoding: 'utf8' });
    expect(r).toMatchObject({ status: 0, stdout: 'prod\nstaging\n', stderr: '' });
  });
});

describe.skipIf(!installed('zsh'))('zsh completion', () => {
  it('is valid zsh', () => {
    expect(spawnSync('zsh', ['-n', script('zsh')]).status).toBe(0);
  });

  it('offers the same candidates as bash (zsh builtins stubbed to print what they are given)', () => {
    const driver = `
compdef() {}
_describe() { local -a a; a=("\${(@P)4}"); print -rn -- " \${(j: :)\${(@)a%%:*}}"; }
compadd() { [[ $1 == -a ]] && { local -a a; a=("\${(@P)2}"); print -rn -- " \${(j: :)a}"; }; }
compset() { PREFIX=\${PREFIX#*=}; }
_files() { print -rn -- ' FILES'; }
dlake() { "$DLAKE_NODE" "$DLAKE_BIN" "$@"; }
source "$1"
while IFS= read -r line; do
  words=(\${=line}); [[ $line == *' ' ]] && words+=('')
  CURRENT=$#words PREFIX=$words[CURRENT]
  print -rn -- "$line"$'\\t'; _dlake; print
done
`;
    const got = runShell(
      'zsh',
      ['-f', '-c', driver, 'driver', script('zsh')],
      [
        'dlake profile ',
        'dlake -o ',
        'dlake --output=j',
        'dlake profile delete ',
        'dlake --ca-file x',
        'dlake source create lake --type ',
      ],
    );
    expect(got.get('dlake source create lake --type ')).toContain('POSTGRES');
    expect(got.get('dlake profile ')).toEqual(['delete', 'list', 'set', 'show', 'use']);
    expect(got.get('dlake -o ')).toEqual(['csv', 'json', 'ndjson', 'table']);
    expect(got.get('dlake --output=j')).toEqual(['csv', 'json', 'ndjson', 'table']);
    expect(got.get('dlake profile delete ')).toEqual(['prod', 'staging']);
    expect(got.get('dlake --ca-file x')).toEqual(['FILES']);
  });
});

describe.skipIf(!installed('fish'))('fish completion', () => {
  it('is valid fish and completes through `complete -C`', () => {
    expect(spawnSync('fish', ['--no-config', '-n', script('fish')]).status).toBe(0);
    const driver = `
function dlake; $DLAKE_NODE $DLAKE_BIN $argv; end
source $argv[1]
while read -l line
    printf '%s\\t%s\\n' "$line" (complete -C "$line" | string replace -r '\\t.*' '' | string join ' ')
end
`;
    const got = runShell(
      'fish',
      ['--no-config', '-c', driver, script('fish')],
      [
        'dlake pro',
        'dlake profile ',
        'dlake -o ',
        'dlake --output=j',
        'dlake -p s',
        'dlake login --pass',
        'dlake source create lake --type PO',
      ],
    );
    expect(got.get('dlake source create lake --type PO')).toEqual(['POSTGRES']);
    expect(got.get('dlake pro')).toEqual(['profile', 'project']);
    expect(got.get('dlake profile ')).toEqual(['delete', 'list', 'set', 'show', 'use']);
    expect(got.get('dlake -o ')).toEqual(['csv', 'json', 'ndjson', 'table']);
    expect(got.get('dlake --output=j')).toEqual(['--output=json']);
    expect(got.get('dlake -p s')).toEqual(['staging']);
    expect(got.get('dlake login --pass')).toEqual(['--password-stdin']);
  });
});
