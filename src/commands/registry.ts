// The top-level commands, by topic: the one place each is named and summed up. Each command's module is
// loaded only when the command line names it (or for help and completions), so starting dlake costs only the
// command it runs; the module fills in the command the registry created (src/commands/define.ts).
import type { Command } from '@commander-js/extra-typings';
import type { CommandRuntime, Declare } from './define.js';

interface GroupDef {
  name: string;
  /** One line, for `dlake --help` and the command's own help (unless its module says more). */
  summary: string;
  topic: string;
  load: () => Promise<Declare>;
}

export const GROUPS: GroupDef[] = [
  {
    name: 'login',
    topic: 'Authentication',
    summary: 'Log in and store a session token or a PAT',
    load: async () => (await import('./login.js')).login,
  },
  {
    name: 'logout',
    topic: 'Authentication',
    summary: "Remove the profile's stored token",
    load: async () => (await import('./login.js')).logout,
  },
  {
    name: 'whoami',
    topic: 'Authentication',
    summary: 'Show the profile, URL, user and token in force',
    load: async () => (await import('./whoami.js')).register,
  },
  {
    name: 'doctor',
    topic: 'Authentication',
    summary: 'Check each step to the service and say how to fix the one that fails',
    load: async () => (await import('./doctor.js')).register,
  },
  {
    name: 'token',
    topic: 'Authentication',
    summary: 'Exchange credentials for an OAuth access token',
    load: async () => (await import('./token.js')).register,
  },
  {
    name: 'profile',
    topic: 'Authentication',
    summary: 'Manage connection profiles',
    load: async () => (await import('./profile/index.js')).register,
  },
  {
    name: 'catalog',
    topic: 'Catalog',
    summary: 'Browse, read and write catalog entities (spaces, folders, datasets)',
    load: async () => (await import('./catalog/index.js')).register,
  },
  {
    name: 'source',
    topic: 'Catalog',
    summary: 'List, inspect, create and configure sources',
    load: async () => (await import('./source/index.js')).register,
  },
  {
    name: 'sql',
    topic: 'Queries',
    summary: 'Run a SQL query, wait for it and print or export the result',
    load: async () => (await import('./sql.js')).register,
  },
  {
    name: 'job',
    topic: 'Queries',
    summary: 'List, explain, profile, wait for, cancel and export SQL jobs',
    load: async () => (await import('./job/index.js')).register,
  },
  {
    name: 'top',
    topic: 'Queries',
    summary: 'Show the running and queued jobs, refreshed; select one and cancel it',
    load: async () => (await import('./top.js')).register,
  },
  {
    name: 'search',
    topic: 'Catalog',
    summary: 'Search the catalog for tables, views, folders and more',
    load: async () => (await import('./search.js')).register,
  },
  {
    name: 'reflection',
    topic: 'Queries',
    summary: 'Create, change, refresh and summarize reflections (acceleration)',
    load: async () => (await import('./reflection/index.js')).register,
  },
  {
    name: 'user',
    topic: 'Administration',
    summary: 'List, create, inspect, update and delete users',
    load: async () => (await import('./user/index.js')).register,
  },
  {
    name: 'role',
    topic: 'Administration',
    summary: 'List, create, change and delete roles, and their members',
    load: async () => (await import('./role/index.js')).register,
  },
  {
    name: 'access',
    topic: 'Administration',
    summary: 'Explain who may use an entity, and through which grants and roles',
    load: async () => (await import('./access.js')).register,
  },
  {
    name: 'pat',
    topic: 'Administration',
    summary: "List, create and revoke users' personal access tokens",
    load: async () => (await import('./pat/index.js')).register,
  },
  {
    name: 'queue',
    topic: 'Administration',
    summary: 'Manage workload-management queues and the rules that place jobs on them',
    load: async () => (await import('./queue/index.js')).register,
  },
  {
    name: 'project',
    topic: 'Administration',
    summary: "List and inspect the hosted edition's projects",
    load: async () => (await import('./project.js')).register,
  },
  {
    name: 'engine',
    topic: 'Administration',
    summary: 'Manage hosted engines and the rules that route jobs to them',
    load: async () => (await import('./engine/index.js')).register,
  },
  {
    name: 'pull',
    topic: 'Definitions as code',
    summary: 'Write the definitions of spaces, views, datasets and sources to YAML files',
    load: async () => (await import('./ascode.js')).pull,
  },
  {
    name: 'plan',
    topic: 'Definitions as code',
    summary: 'Show what apply would change to match the definition files',
    load: async () => (await import('./ascode.js')).plan,
  },
  {
    name: 'apply',
    topic: 'Definitions as code',
    summary: 'Create and update entities to match the definition files',
    load: async () => (await import('./ascode.js')).apply,
  },
  {
    name: 'diff',
    topic: 'Definitions as code',
    summary: 'Show what differs between two estates (profiles), as plan lines',
    load: async () => (await import('./ascode.js')).diff,
  },
  {
    name: 'api',
    topic: 'Other',
    summary: 'Make an authenticated API request',
    load: async () => (await import('./api.js')).register,
  },
  {
    name: 'version',
    topic: 'Other',
    summary: 'Print the version, the build and the Node.js that runs it (as --version does)',
    load: async () => (await import('./version.js')).register,
  },
  {
    name: 'describe',
    topic: 'Other',
    summary: 'Print the commands, options and exit codes as data, for agents and scripts',
    load: async () => (await import('./describe.js')).register,
  },
  {
    name: 'mcp',
    topic: 'Other',
    summary: 'Serve dlake to AI agents over the Model Context Protocol (stdio)',
    load: async () => (await import('./mcp.js')).register,
  },
  {
    name: 'agents',
    topic: 'Other',
    summary: 'Register dlake mcp and a dlake skill with the AI agent hosts on this machine',
    load: async () => (await import('./agents.js')).register,
  },
  {
    name: 'completion',
    topic: 'Other',
    summary: 'Print a shell completion script (bash, zsh, fish)',
    load: async () => (await import('./completion.js')).register,
  },
];

/** Registers the groups: fully for those in `load`, as one-line stubs (for help) for the others. */
export async function registerGroups(
  program: Command,
  rt: CommandRuntime,
  load: Set<string> | 'all',
): Promise<void> {
  const declares = await Promise.all(
    GROUPS.map((g) => (load === 'all' || load.has(g.name) ? g.load() : undefined)),
  );
  GROUPS.forEach((g, i) => {
    const cmd = program.command(g.name).summary(g.summary).description(g.summary).helpGroup(`${g.topic}:`);
    const declare = declares[i];
    if (declare) declare(cmd, rt);
    else cmd.allowUnknownOption().allowExcessArguments();
  });
}
