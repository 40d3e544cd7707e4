// `dlake agents install | uninstall | list` in a home folder of its own holding the real configuration files of
// every host (test/fixtures/agents): what is written where, idempotence, --dry-run, a user's own entry never
// replaced without --force (exit 2, nothing written), and uninstall giving each file back as it was.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEntry } from '../../src/agents/config-text.js';
import { runDlake } from '../helpers/dlake.js';
import { runInProcess } from '../helpers/in-process.js';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/agents');
let home: string;
let env: Record<string, string | undefined>;

/** Where each host keeps its user file under `home`, and the real file put there. */
const USER_FILES: [string, string, string[]][] = [
  ['.claude.json', 'claude-code.mcp.json', ['mcpServers', 'dlake']],
  ['.codex/config.toml', 'codex.config.toml', ['mcp_servers', 'dlake']],
  ['.cursor/mcp.json', 'cursor.mcp.json', ['mcpServers', 'dlake']],
  ['.config/Code/User/mcp.json', 'vscode.mcp.json', ['servers', 'dlake']],
  ['.gemini/settings.json', 'gemini.settings.json', ['mcpServers', 'dlake']],
  ['.config/goose/config.yaml', 'goose.config.yaml', ['extensions', 'dlake']],
  ['.copilot/mcp-config.json', 'copilot.mcp-config.json', ['mcpServers', 'dlake']],
];
const SKILLS = [
  '.claude/skills/dlake/SKILL.md',
  '.agents/skills/dlake/SKILL.md',
  '.cursor/skills/dlake/SKILL.md',
  '.copilot/skills/dlake/SKILL.md',
  '.gemini/skills/dlake/SKILL.md',
  '.config/goose/skills/dlake/SKILL.md',
];
const read = (rel: string) => readFileSync(join(home, rel), 'utf8');
const formatOf = (rel: string) => (rel.endsWith('.toml') ? 'toml' : rel.endsWith('.yaml') ? 'yaml' : 'json');
const run = (...args: string[]) => runInProcess(['agents', ...args], { env });

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'dlake-agents-'));
  for (const [rel, fixture] of USER_FILES) {
    mkdirSync(dirname(join(home, rel)), { recursive: true });
    cpSync(join(FIXTURES, fixture), join(home, rel));
  }
  mkdirSync(join(home, '.claude'));
  env = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    CODEX_HOME: undefined,
    COPILOT_HOME: undefined,
    DLAKE_CONFIG_DIR: join(home, 'dlake-config'),
  };
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('dlake agents install (user scope)', () => {
  it('registers dlake mcp in every host found, each in its own format, and writes the skills', async () => {
    for (const name of ['prod', 'staging'])
      expect(
        (await runInProcess(['profile', 'set', name, '--url', 'https://lake.example.com'], { env })).code,
      ).toBe(0);
    const unknown = await run('install', '--profile', 'nope');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: unknown profile "nope"\n/);
    expect((await run('install', '--allow-path', 'Sales..x')).stderr).toMatch(
      /^error: --allow-path "Sales\.\.x" is not/,
    );
    const r = await run(
      'install',
      '--profile',
      'prod',
      '--profile',
      'staging',
      '--allow-path',
      'Sales',
      '-o',
      'json',
    );
    expect(r.code, r.stderr).toBe(0);
    const { changes } = JSON.parse(r.stdout) as { changes: { host: string; what: string; change: string }[] };
    expect(changes.filter((c) => c.what === 'mcp server').map((c) => [c.host, c.change])).toEqual([
      ['claude-code', 'add'],
      ['codex', 'add'],
      ['cursor', 'add'],
      ['vscode', 'add'],
      ['gemini', 'add'],
      ['goose', 'add'],
      ['copilot', 'add'],
    ]);
    const args = ['mcp', '--profile', 'prod', '--profile', 'staging', '--allow-path', 'Sales'];
    const dlakeEnv = { DLAKE_CONFIG_DIR: env.DLAKE_CONFIG_DIR };
    const entries = await Promise.all(
      USER_FILES.map(([rel, , key]) => readEntry(read(rel), formatOf(rel), key)),
    );
    expect(entries).toEqual([
      { type: 'stdio', command: 'dlake', args, env: dlakeEnv },
      { command: 'dlake', args, env: dlakeEnv },
      { command: 'dlake', args, env: dlakeEnv },
      { type: 'stdio', command: 'dlake', args, env: dlakeEnv },
      { command: 'dlake', args, env: dlakeEnv },
      expect.objectContaining({ enabled: true, type: 'stdio', cmd: 'dlake', args, envs: dlakeEnv }),
      { type: 'local', command: 'dlake', args, env: dlakeEnv, tools: ['*'] },
    ]);
    // The user's own servers are all still there.
    expect(await readEntry(read('.codex/config.toml'), 'toml', ['projects'])).toBeDefined();
    expect(read('.config/Code/User/mcp.json')).toContain('//     "watch": "mcp-stdio/**/*.ts",');
    for (const skill of SKILLS) expect(read(skill)).toMatch(/^---\nname: dlake\ndescription: /);
    expect(r.stderr).toContain('Restart the hosts');
  });

  it('a second run changes nothing and says so; --dry-run writes nothing', async () => {
    const dry = await run('install', '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^HOST +SCOPE +WHAT +WOULD +FILE/);
    expect(dry.stderr).toContain('Dry run: nothing was written.');
    for (const [rel, fixture] of USER_FILES)
      expect(read(rel)).toBe(readFileSync(join(FIXTURES, fixture), 'utf8'));
    expect(existsSync(join(home, 'dlake-config', 'agents.json'))).toBe(false);
    expect((await run('install')).code).toBe(0);
    const after = USER_FILES.map(([rel]) => read(rel));
    const again = await run('install', '-o', 'json');
    expect(again.code).toBe(0);
    expect(
      (JSON.parse(again.stdout) as { changes: { change: string }[] }).changes.every(
        (c) => c.change === 'unchanged',
      ),
    ).toBe(true);
    expect(again.stderr).toContain('Nothing to change: every host is as asked.');
    expect(USER_FILES.map(([rel]) => read(rel))).toEqual(after);
  });

  it("never replaces a user's own dlake entry: exit 2 naming it, nothing written; --force replaces it", async () => {
    const mine =
      '{\n  "mcpServers": {\n    "dlake": { "command": "/opt/dlake/bin/dlake", "args": ["mcp"] }\n  }\n}\n';
    writeFileSync(join(home, '.cursor/mcp.json'), mine);
    const r = await run('install');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: cursor: ${join(home, '.cursor/mcp.json')} already has an entry "dlake" that dlake did not write\n` +
        'hint: nothing was written; --force replaces it\n',
    );
    expect(read('.codex/config.toml')).toBe(readFileSync(join(FIXTURES, 'codex.config.toml'), 'utf8'));
    expect(existsSync(join(home, SKILLS[0]!))).toBe(false);
    const forced = await run('install', 'cursor', '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readEntry(read('.cursor/mcp.json'), 'json', ['mcpServers', 'dlake'])).toMatchObject({
      command: 'dlake',
    });
  });

  it('uninstall removes exactly what install wrote; an entry changed since is kept without --force', async () => {
    expect((await run('install')).code).toBe(0);
    // The user edits dlake's Gemini entry: it is theirs now.
    const gemini = read('.gemini/settings.json').replace(
      '"command": "dlake"',
      '"command": "/usr/local/bin/dlake"',
    );
    writeFileSync(join(home, '.gemini/settings.json'), gemini);
    const refused = await run('uninstall');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^error: gemini: the "dlake" entry of .*settings\.json was changed since dlake wrote it\n/,
    );
    expect(existsSync(join(home, SKILLS[0]!))).toBe(true);
    const rest = await run('uninstall', 'claude-code', 'codex', 'cursor', 'vscode', 'goose', 'copilot');
    expect(rest.code, rest.stderr).toBe(0);
    for (const [rel, fixture] of USER_FILES) {
      if (rel.startsWith('.gemini')) continue;
      const original = readFileSync(join(FIXTURES, fixture), 'utf8');
      if (fixture === 'cursor.mcp.json') expect(JSON.parse(read(rel))).toEqual(JSON.parse(original));
      else expect(read(rel), rel).toBe(original);
    }
    expect(existsSync(join(home, '.claude/skills/dlake'))).toBe(false);
    // VS Code and Copilot CLI share ~/.copilot/skills: gone with the last of them.
    expect(existsSync(join(home, '.copilot/skills/dlake/SKILL.md'))).toBe(false);
    expect(existsSync(join(home, '.gemini/skills/dlake/SKILL.md'))).toBe(true);
    expect((await run('uninstall', 'gemini', '--force')).code).toBe(0);
    expect(await readEntry(read('.gemini/settings.json'), 'json', ['mcpServers', 'dlake'])).toBeUndefined();
    expect(JSON.parse(read('dlake-config/agents.json'))).toEqual({ version: 1, written: [] });
  });

  it('a skills folder two hosts share stays until the last of them is uninstalled', async () => {
    expect((await run('install', 'vscode', 'copilot')).code).toBe(0);
    const skill = join(home, '.copilot/skills/dlake/SKILL.md');
    const first = await run('uninstall', 'vscode', '-o', 'json');
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).changes).toContainEqual(
      expect.objectContaining({
        host: 'vscode',
        what: 'skill',
        change: 'skip',
        note: 'still used by another host',
      }),
    );
    expect(existsSync(skill)).toBe(true);
    expect((await run('uninstall', 'copilot')).code).toBe(0);
    expect(existsSync(skill)).toBe(false);
    expect(JSON.parse(read('dlake-config/agents.json')).written).toEqual([]);
  });

  it('list: which hosts are found and what each scope holds; an unknown host is exit 2 with the nearest', async () => {
    rmSync(join(home, '.config/goose'), { recursive: true });
    expect((await run('install', 'codex')).code).toBe(0);
    const r = await run('list', '-o', 'json');
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as { host: string; found: boolean; scope: string; mcp: string }[];
    expect(rows.find((x) => x.host === 'goose')?.found).toBe(false);
    expect(rows.find((x) => x.host === 'codex' && x.scope === 'user')?.mcp).toBe('dlake agents install');
    expect(rows.find((x) => x.host === 'claude-code' && x.scope === 'user')?.mcp).toBe('none');
    const bad = await run('install', 'claude');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'error: unknown agent host "claude"\nhint: the hosts: claude-code, codex, cursor, vscode, gemini, goose, copilot\n',
    );
  });
});

describe('dlake agents install --scope project', () => {
  it("writes the project's own files (to commit), creating them, and uninstall removes the files it created", async () => {
    const project = join(home, 'project');
    mkdirSync(project);
    const r = await runDlake(['agents', 'install', 'claude-code', 'vscode', 'goose', '--scope', 'project'], {
      env,
      cwd: project,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8'))).toEqual({
      mcpServers: {
        dlake: {
          type: 'stdio',
          command: 'dlake',
          args: ['mcp'],
          env: { DLAKE_CONFIG_DIR: env.DLAKE_CONFIG_DIR },
        },
      },
    });
    expect(existsSync(join(project, '.vscode/mcp.json'))).toBe(true);
    expect(existsSync(join(project, '.github/skills/dlake/SKILL.md'))).toBe(true);
    expect(r.stdout).toMatch(
      /goose +project +mcp server +skip \(Goose keeps its servers in the user's configuration only/,
    );
    const u = await runDlake(['agents', 'uninstall', '--scope', 'project'], { env, cwd: project });
    expect(u.code, u.stderr).toBe(0);
    expect(existsSync(join(project, '.mcp.json'))).toBe(false);
    expect(existsSync(join(project, '.vscode/mcp.json'))).toBe(false);
    expect(existsSync(join(project, '.github/skills/dlake'))).toBe(false);
  });
});
