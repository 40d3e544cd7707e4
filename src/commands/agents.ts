// `dlake agents install | uninstall | list`: register `dlake mcp` with the AI agent hosts on this machine, and
// give those that read skills a skill generated from `dlake describe` (docs/agents.md "Installing into agent
// hosts"). The hosts' formats and files are in src/agents/hosts.ts; the plan and its writing in
// src/agents/install.ts. No network: everything is read and written on this machine.
import { homedir } from 'node:os';
import type { Command, CommandUnknownOpts } from '@commander-js/extra-typings';
import { configDir } from '../config/dir.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { nearest } from '../util/nearest.js';
import { examples } from './common.js';
import { type Declare, defineCommand, defineGroup, type OptionsOf } from './define.js';
import { choiceOption, repeatable, size } from './options.js';

const HOST_LIST = 'claude-code, codex, cursor, vscode, gemini, goose, copilot';
const scopeOption = () =>
  choiceOption(
    '--scope <scope>',
    'user: for every project (default); project: files in this folder, to share',
    ['user', 'project'] as const,
  );

const installDeclaration = (agents: Command) =>
  agents
    .command('install')
    .description(
      `Register dlake mcp with each agent host found (or those named: ${HOST_LIST}) and write a skill for those that read skills`,
    )
    .argument('[hosts...]', 'the hosts to install into (default: every host found on this machine)')
    .addOption(scopeOption())
    .option(
      '-p, --profile <name>',
      'a profile the agent may use (passed to dlake mcp); repeatable, the first is the default',
      repeatable('--profile'),
    )
    .option('--allow-writes', 'let the agent run statements that change data (passed to dlake mcp)')
    .option(
      '--allow-path <path>',
      'only this space or folder of the catalog for the agent (passed to dlake mcp); repeatable',
      repeatable('--allow-path'),
    )
    .option(
      '--max-result-bytes <size>',
      'cut each tool answer at this size (passed to dlake mcp)',
      size('--max-result-bytes'),
    )
    .option('--command <path>', 'how hosts start dlake (default: dlake, found on their PATH)')
    .option('--dry-run', 'print what would change and write nothing')
    .option('--force', "replace an entry or skill named dlake that dlake did not write (a user's own)")
    .addHelpText(
      'after',
      examples(
        'dlake agents install                          # every host found, for this user',
        'dlake agents install claude-code codex --profile prod',
        'dlake agents install vscode --scope project   # .vscode/mcp.json and .github/skills, to commit',
        'dlake agents install --dry-run',
      ),
    );

const uninstallDeclaration = (agents: Command) =>
  agents
    .command('uninstall')
    .description('Remove exactly what dlake agents install wrote: its MCP entries and skills, nothing else')
    .argument('[hosts...]', `the hosts to uninstall from (default: all it installed into): ${HOST_LIST}`)
    .addOption(scopeOption())
    .option('--dry-run', 'print what would change and write nothing')
    .option('--force', 'remove an entry or skill of dlake even if it was changed since dlake wrote it')
    .addHelpText(
      'after',
      examples('dlake agents uninstall', 'dlake agents uninstall cursor --scope project'),
    );

const listDeclaration = (agents: Command) =>
  agents
    .command('list')
    .alias('ls')
    .description('Show the agent hosts, whether each is found here, and what is registered in each scope')
    .addHelpText('after', examples('dlake agents list', 'dlake agents list -o json'));

/** install describes the tree this command belongs to: the root, every group loaded (src/runtime.ts). */
const registerInstall: Declare = (agents, rt) => {
  const cmd = installDeclaration(agents);
  cmd.action(
    rt.action((ctx: Context, names: string[], opts: OptionsOf<typeof installDeclaration>) => {
      let root: CommandUnknownOpts = cmd;
      while (root.parent) root = root.parent;
      return install(ctx, names, opts, root);
    }),
  );
};

export const register = defineGroup([
  registerInstall,
  defineCommand(uninstallDeclaration, uninstall),
  defineCommand(listDeclaration, list),
]);

/** The home folder (HOME, as the hosts themselves read it), this folder for project scope, the environment. */
async function place(ctx: Context) {
  const home = (process.platform === 'win32' ? ctx.env.USERPROFILE : ctx.env.HOME) || homedir();
  return { home, cwd: process.cwd(), env: ctx.env, platform: process.platform };
}

/** The hosts named, checked; none named: `fallback`. */
async function hostsNamed(
  names: string[],
  fallback: () => string[],
): Promise<import('../agents/hosts.js').HostId[]> {
  const { HOST_IDS } = await import('../agents/hosts.js');
  for (const name of names) {
    if (!(HOST_IDS as readonly string[]).includes(name)) {
      const near = nearest(name, HOST_IDS);
      throw new UsageError(`unknown agent host "${name}"`, {
        hint: near ? `did you mean ${near}? (the hosts: ${HOST_LIST})` : `the hosts: ${HOST_LIST}`,
      });
    }
  }
  return [...new Set(names.length > 0 ? names : fallback())] as import('../agents/hosts.js').HostId[];
}

/** The hosts installed on this machine: one of each host's folders or files exists. */
async function hostsFound(p: Awaited<ReturnType<typeof place>>) {
  const [{ existsSync }, { HOST_IDS, HOSTS }] = await Promise.all([
    import('node:fs'),
    import('../agents/hosts.js'),
  ]);
  return HOST_IDS.filter((id) => HOSTS[id].markers(p).some((m) => existsSync(m)));
}

async function install(
  ctx: Context,
  names: string[],
  opts: OptionsOf<typeof installDeclaration>,
  root: CommandUnknownOpts,
): Promise<void> {
  const p = await place(ctx);
  const found = await hostsFound(p);
  const hosts = await hostsNamed(names, () => found);
  if (hosts.length === 0)
    throw new UsageError('no agent host found on this machine', {
      hint: `name one to install into anyway: dlake agents install HOST (${HOST_LIST})`,
    });
  const [{ planInstall, loadRecord }, { skillText }, { describeTree }] = await Promise.all([
    import('../agents/install.js'),
    import('../agents/skill.js'),
    import('../describe/model.js'),
  ]);
  // Each profile must exist: a host would otherwise start a dlake mcp that stops at once.
  const known = Object.keys(ctx.snapshot().config.profiles);
  for (const name of opts.profile ?? []) {
    if (!known.includes(name))
      throw new UsageError(`unknown profile "${name}"`, {
        hint: known.length ? `known profiles: ${known.join(', ')}` : 'create one with `dlake login`',
      });
  }
  // A path the host's dlake mcp would refuse is refused now, before anything is written.
  if (opts.allowPath?.length) {
    const { parseAllowedPath } = await import('../mcp/allow-path.js');
    for (const path of opts.allowPath) parseAllowedPath(path);
  }
  const args = [
    'mcp',
    ...(opts.profile ?? []).flatMap((name) => ['--profile', name]),
    ...(opts.allowWrites ? ['--allow-writes'] : []),
    ...(opts.allowPath ?? []).flatMap((path) => ['--allow-path', path]),
    ...(opts.maxResultBytes !== undefined ? ['--max-result-bytes', String(opts.maxResultBytes)] : []),
  ];
  // A config folder of its own must reach dlake when the host starts it, maybe without this shell's environment.
  const env: Record<string, string> = ctx.env.DLAKE_CONFIG_DIR
    ? { DLAKE_CONFIG_DIR: ctx.env.DLAKE_CONFIG_DIR }
    : {};
  const server = { command: opts.command ?? 'dlake', args, env };
  const skill = skillText(describeTree(root), __DLAKE_VERSION__);
  const dir = configDir(ctx.env);
  const record = loadRecord(dir);
  const changes = await planInstall(
    hosts,
    opts.scope ?? 'user',
    p,
    server,
    skill,
    record,
    Boolean(opts.force),
  );
  await finish(ctx, changes, record, dir, { dryRun: opts.dryRun, uninstall: false });
}

async function uninstall(
  ctx: Context,
  names: string[],
  opts: OptionsOf<typeof uninstallDeclaration>,
): Promise<void> {
  const { planUninstall, loadRecord } = await import('../agents/install.js');
  const dir = configDir(ctx.env);
  const record = loadRecord(dir);
  const hosts = await hostsNamed(names, () => record.written.map((w) => w.host));
  const changes = await planUninstall(hosts, opts.scope ?? 'user', record, Boolean(opts.force));
  await finish(ctx, changes, record, dir, { dryRun: opts.dryRun, uninstall: true });
}

const WORDS = {
  add: 'add',
  update: 'update',
  remove: 'remove',
  unchanged: 'unchanged',
  gone: 'already gone',
  skip: 'skip',
} as const;

/** Refuses a plan with conflicts (exit 2, nothing written), else writes it (unless a dry run), and says what changed. */
async function finish(
  ctx: Context,
  changes: import('../agents/install.js').Change[],
  record: import('../agents/install.js').AgentsRecord,
  dir: string,
  how: { dryRun?: boolean; uninstall: boolean },
): Promise<void> {
  const conflicts = changes.filter((c) => c.conflict);
  if (conflicts.length > 0) {
    throw new UsageError(`${conflicts[0]!.host}: ${conflicts[0]!.conflict}`, {
      details: conflicts.slice(1).map((c) => `${c.host}: ${c.conflict}`),
      hint: `nothing was written; --force ${how.uninstall ? 'removes it anyway' : 'replaces it'}`,
    });
  }
  const changing = changes.filter(
    (c) => c.action === 'add' || c.action === 'update' || c.action === 'remove',
  );
  if (!how.dryRun && (changing.length > 0 || changes.some((c) => c.record))) {
    const { applyChanges } = await import('../agents/install.js');
    applyChanges(changes, record, dir, how.uninstall);
  }
  const rows = changes.map((c) => ({
    host: c.host,
    scope: c.scope,
    what: c.kind === 'mcp' ? 'mcp server' : 'skill',
    file: c.file || null,
    change: c.action,
    ...(c.note ? { note: c.note } : {}),
  }));
  await ctx.print({
    data: { dryRun: Boolean(how.dryRun), changes: rows },
    rows,
    view: {
      empty: how.uninstall ? 'Nothing dlake agents install wrote is left to remove.' : 'Nothing to install.',
      columns: [
        { header: 'HOST', value: (r: (typeof rows)[number]) => r.host },
        { header: 'SCOPE', value: (r: (typeof rows)[number]) => r.scope },
        { header: 'WHAT', value: (r: (typeof rows)[number]) => r.what },
        {
          header: how.dryRun ? 'WOULD' : 'CHANGE',
          value: (r: (typeof rows)[number]) => `${WORDS[r.change]}${r.note ? ` (${r.note})` : ''}`,
        },
        { header: 'FILE', value: (r: (typeof rows)[number]) => r.file ?? '' },
      ],
    },
  });
  if (changing.length === 0 && changes.length > 0)
    ctx.ui.notice('Nothing to change: every host is as asked.');
  else if (how.dryRun) ctx.ui.notice('Dry run: nothing was written.');
  else if (!how.uninstall) ctx.ui.notice('Restart the hosts (or reload their MCP servers) to pick dlake up.');
}

async function list(ctx: Context): Promise<void> {
  const [{ existsSync }, { HOST_IDS, HOSTS }, { loadRecord }, { readEntry }] = await Promise.all([
    import('node:fs'),
    import('../agents/hosts.js'),
    import('../agents/install.js'),
    import('../agents/config-text.js'),
  ]);
  const p = await place(ctx);
  const record = loadRecord(configDir(ctx.env));
  const { readTextFile } = await import('../util/files.js');
  interface HostRow {
    host: string;
    name: string;
    found: boolean;
    scope: string;
    mcp: string;
    mcpFile: string | null;
    skill: string;
  }
  const rows: HostRow[] = [];
  for (const id of HOST_IDS) {
    const host = HOSTS[id];
    const found = host.markers(p).some((m) => existsSync(m));
    for (const scope of ['user', 'project'] as const) {
      const mcp = host.mcp(scope, p);
      const entry =
        mcp && existsSync(mcp.file)
          ? await readEntry(readTextFile(mcp.file), mcp.format, mcp.key).catch(() => undefined)
          : undefined;
      const ours = record.written.some((w) => w.host === id && w.scope === scope && w.kind === 'mcp');
      const skillFile = `${host.skill(scope, p)}/SKILL.md`;
      rows.push({
        host: id,
        name: host.name,
        found,
        scope,
        mcp: entry === undefined ? 'none' : ours ? 'dlake agents install' : "the user's own",
        mcpFile: mcp?.file ?? null,
        skill: existsSync(skillFile)
          ? record.written.some((w) => w.file === skillFile)
            ? 'dlake agents install'
            : "the user's own"
          : 'none',
      });
    }
  }
  await ctx.print({
    data: rows,
    view: {
      columns: [
        { header: 'HOST', value: (r: HostRow) => r.host },
        { header: 'FOUND', value: (r: HostRow) => (r.found ? 'yes' : 'no') },
        { header: 'SCOPE', value: (r: HostRow) => r.scope },
        { header: 'MCP SERVER', value: (r: HostRow) => r.mcp },
        { header: 'SKILL', value: (r: HostRow) => r.skill },
        { header: 'FILE', value: (r: HostRow) => r.mcpFile ?? '' },
      ],
    },
  });
}
