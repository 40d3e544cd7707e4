// The agent hosts `dlake agents` knows (docs/agents.md "Installing into agent hosts", which cites each host's own
// documentation): where each keeps its MCP servers, in which format and under which key, what an entry looks
// like, and where it reads skills. One table, so that adding a host is adding a row.
import { join } from 'node:path';

export const HOST_IDS = ['claude-code', 'codex', 'cursor', 'vscode', 'gemini', 'goose', 'copilot'] as const;
export type HostId = (typeof HOST_IDS)[number];
export type Scope = 'user' | 'project';
export type Format = 'json' | 'toml' | 'yaml';

/** The name dlake's server and skill go by in every host. */
export const SERVER_NAME = 'dlake';

/** Where the command runs: the home folder, the project folder (the working directory), the environment. */
export interface Place {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
}

/** How a host starts `dlake mcp`. */
export interface Server {
  command: string;
  args: string[];
  /** Only what the host must pass on (DLAKE_CONFIG_DIR when profiles live elsewhere); never a secret. */
  env: Record<string, string>;
}

/** A host's MCP configuration file, and the key path of dlake's entry in it (its last part the name). */
export interface McpFile {
  file: string;
  format: Format;
  key: string[];
}

interface Host {
  id: HostId;
  name: string;
  /** Folders or files of which one exists when the host is installed for this user. */
  markers(p: Place): string[];
  /** Its MCP file at a scope; undefined where the host has none at that scope. */
  mcp(scope: Scope, p: Place): McpFile | undefined;
  /** dlake's entry as this host writes it. */
  entry(s: Server): Record<string, unknown>;
  /** The folder of dlake's skill (holding SKILL.md) at a scope. */
  skill(scope: Scope, p: Place): string;
}

const withEnv = (s: Server) => (Object.keys(s.env).length > 0 ? { env: s.env } : {});
/** `$XDG_CONFIG_HOME` or ~/.config (POSIX), for hosts that follow it. */
const xdgConfig = (p: Place) => p.env.XDG_CONFIG_HOME || join(p.home, '.config');
const codexHome = (p: Place) => p.env.CODEX_HOME || join(p.home, '.codex');
const copilotHome = (p: Place) => p.env.COPILOT_HOME || join(p.home, '.copilot');
/** VS Code's user folder (its `mcp.json` lives there). */
function vscodeUser(p: Place): string {
  if (p.platform === 'darwin') return join(p.home, 'Library', 'Application Support', 'Code', 'User');
  if (p.platform === 'win32')
    return join(p.env.APPDATA ?? join(p.home, 'AppData', 'Roaming'), 'Code', 'User');
  return join(xdgConfig(p), 'Code', 'User');
}
function gooseConfig(p: Place): string {
  if (p.platform === 'win32')
    return join(p.env.APPDATA ?? join(p.home, 'AppData', 'Roaming'), 'Block', 'goose', 'config');
  return join(xdgConfig(p), 'goose');
}
const at = (scope: Scope, p: Place, user: string, project: string) =>
  scope === 'user' ? user : join(p.cwd, project);

export const HOSTS: Record<HostId, Host> = {
  'claude-code': {
    id: 'claude-code',
    name: 'Claude Code',
    markers: (p) => [join(p.home, '.claude'), join(p.home, '.claude.json')],
    mcp: (scope, p) => ({
      file: scope === 'user' ? join(p.home, '.claude.json') : join(p.cwd, '.mcp.json'),
      format: 'json',
      key: ['mcpServers', SERVER_NAME],
    }),
    entry: (s) => ({ type: 'stdio', command: s.command, args: s.args, ...withEnv(s) }),
    skill: (scope, p) =>
      at(scope, p, join(p.home, '.claude', 'skills', SERVER_NAME), `.claude/skills/${SERVER_NAME}`),
  },
  codex: {
    id: 'codex',
    name: 'Codex',
    markers: (p) => [codexHome(p)],
    mcp: (scope, p) => ({
      file: scope === 'user' ? join(codexHome(p), 'config.toml') : join(p.cwd, '.codex', 'config.toml'),
      format: 'toml',
      key: ['mcp_servers', SERVER_NAME],
    }),
    entry: (s) => ({ command: s.command, args: s.args, ...withEnv(s) }),
    skill: (scope, p) =>
      at(scope, p, join(p.home, '.agents', 'skills', SERVER_NAME), `.agents/skills/${SERVER_NAME}`),
  },
  cursor: {
    id: 'cursor',
    name: 'Cursor',
    markers: (p) => [join(p.home, '.cursor')],
    mcp: (scope, p) => ({
      file: at(scope, p, join(p.home, '.cursor', 'mcp.json'), '.cursor/mcp.json'),
      format: 'json',
      key: ['mcpServers', SERVER_NAME],
    }),
    entry: (s) => ({ command: s.command, args: s.args, ...withEnv(s) }),
    skill: (scope, p) =>
      at(scope, p, join(p.home, '.cursor', 'skills', SERVER_NAME), `.cursor/skills/${SERVER_NAME}`),
  },
  vscode: {
    id: 'vscode',
    name: 'VS Code',
    markers: (p) => [vscodeUser(p)],
    mcp: (scope, p) => ({
      file: at(scope, p, join(vscodeUser(p), 'mcp.json'), '.vscode/mcp.json'),
      format: 'json',
      key: ['servers', SERVER_NAME],
    }),
    entry: (s) => ({ type: 'stdio', command: s.command, args: s.args, ...withEnv(s) }),
    skill: (scope, p) =>
      at(scope, p, join(copilotHome(p), 'skills', SERVER_NAME), `.github/skills/${SERVER_NAME}`),
  },
  gemini: {
    id: 'gemini',
    name: 'Gemini CLI',
    markers: (p) => [join(p.home, '.gemini')],
    mcp: (scope, p) => ({
      file: at(scope, p, join(p.home, '.gemini', 'settings.json'), '.gemini/settings.json'),
      format: 'json',
      key: ['mcpServers', SERVER_NAME],
    }),
    entry: (s) => ({ command: s.command, args: s.args, ...withEnv(s) }),
    skill: (scope, p) =>
      at(scope, p, join(p.home, '.gemini', 'skills', SERVER_NAME), `.gemini/skills/${SERVER_NAME}`),
  },
  goose: {
    id: 'goose',
    name: 'Goose',
    markers: (p) => [gooseConfig(p)],
    // Goose has one configuration, the user's: no project file to register a server in.
    mcp: (scope, p) =>
      scope === 'user'
        ? { file: join(gooseConfig(p), 'config.yaml'), format: 'yaml', key: ['extensions', SERVER_NAME] }
        : undefined,
    entry: (s) => ({
      enabled: true,
      type: 'stdio',
      name: SERVER_NAME,
      description: 'The Data Lake Query Service through dlake: catalog, SQL (read-only unless allowed), jobs',
      cmd: s.command,
      args: s.args,
      envs: s.env,
      timeout: 300,
    }),
    skill: (scope, p) =>
      at(scope, p, join(gooseConfig(p), 'skills', SERVER_NAME), `.goose/skills/${SERVER_NAME}`),
  },
  copilot: {
    id: 'copilot',
    name: 'Copilot CLI',
    markers: (p) => [copilotHome(p)],
    mcp: (scope, p) => ({
      file: at(scope, p, join(copilotHome(p), 'mcp-config.json'), '.github/mcp.json'),
      format: 'json',
      key: ['mcpServers', SERVER_NAME],
    }),
    entry: (s) => ({ type: 'local', command: s.command, args: s.args, ...withEnv(s), tools: ['*'] }),
    skill: (scope, p) =>
      at(scope, p, join(copilotHome(p), 'skills', SERVER_NAME), `.github/skills/${SERVER_NAME}`),
  },
};
