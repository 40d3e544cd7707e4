// The top-level commands, by topic. Each group's module is loaded only when the command line names it
// (or for help and completions), so starting dlake costs only the group it runs.
import type { Command } from 'commander';
import type { Runtime } from '../runtime.js';

interface GroupModule {
  register(program: Command, rt: Runtime): void;
}

interface GroupDef {
  name: string;
  summary: string;
  topic: string;
  load: () => Promise<GroupModule>;
}

export const GROUPS: GroupDef[] = [
  {
    name: 'login',
    topic: 'Authentication',
    summary: 'Log in and store a session token or a PAT',
    load: () => import('./login.js'),
  },
  {
    name: 'logout',
    topic: 'Authentication',
    summary: "Remove the profile's stored token",
    load: () => import('./login.js'),
  },
  {
    name: 'whoami',
    topic: 'Authentication',
    summary: 'Show the profile, URL, user and token in force',
    load: () => import('./whoami.js'),
  },
  {
    name: 'token',
    topic: 'Authentication',
    summary: 'Exchange credentials for an OAuth access token',
    load: () => import('./token.js'),
  },
  {
    name: 'profile',
    topic: 'Authentication',
    summary: 'Manage connection profiles',
    load: () => import('./profile/index.js'),
  },
  {
    name: 'catalog',
    topic: 'Catalog',
    summary: 'Browse, read and write catalog entities (spaces, folders, datasets)',
    load: () => import('./catalog/index.js'),
  },
  {
    name: 'source',
    topic: 'Catalog',
    summary: 'List, inspect, create and configure sources',
    load: () => import('./source/index.js'),
  },
  {
    name: 'sql',
    topic: 'Queries',
    summary: 'Run a SQL query, wait for it and print or export the result',
    load: () => import('./sql.js'),
  },
  {
    name: 'job',
    topic: 'Queries',
    summary: 'Inspect, wait for, cancel and export SQL jobs',
    load: () => import('./job/index.js'),
  },
  {
    name: 'reflection',
    topic: 'Queries',
    summary: 'Create, change, refresh and summarize reflections (acceleration)',
    load: () => import('./reflection/index.js'),
  },
  {
    name: 'user',
    topic: 'Administration',
    summary: 'List, create, inspect, update and delete users',
    load: () => import('./user/index.js'),
  },
  {
    name: 'role',
    topic: 'Administration',
    summary: 'List, create, change and delete roles, and their members',
    load: () => import('./role/index.js'),
  },
  {
    name: 'pat',
    topic: 'Administration',
    summary: "List, create and revoke users' personal access tokens",
    load: () => import('./pat/index.js'),
  },
  {
    name: 'queue',
    topic: 'Administration',
    summary: 'Manage workload-management queues',
    load: () => import('./queue/index.js'),
  },
  {
    name: 'project',
    topic: 'Administration',
    summary: "List and inspect the hosted edition's projects",
    load: () => import('./project.js'),
  },
  {
    name: 'engine',
    topic: 'Administration',
    summary: 'Manage hosted engines and the rules that route jobs to them',
    load: () => import('./engine/index.js'),
  },
  {
    name: 'pull',
    topic: 'Definitions as code',
    summary: 'Write the definitions of spaces, views, datasets and sources to YAML files',
    load: () => import('./ascode.js'),
  },
  {
    name: 'plan',
    topic: 'Definitions as code',
    summary: 'Show what apply would change to match the definition files',
    load: () => import('./ascode.js'),
  },
  {
    name: 'apply',
    topic: 'Definitions as code',
    summary: 'Create and update entities to match the definition files',
    load: () => import('./ascode.js'),
  },
  {
    name: 'api',
    topic: 'Other',
    summary: 'Make an authenticated API request',
    load: () => import('./api.js'),
  },
  {
    name: 'version',
    topic: 'Other',
    summary: 'Print the version (as --version does)',
    load: () => import('./version.js'),
  },
  {
    name: 'completion',
    topic: 'Other',
    summary: 'Print a shell completion script (bash, zsh, fish)',
    load: () => import('./completion.js'),
  },
];

/** Registers the groups: fully for those in `load`, as one-line stubs (for help) for the others. */
export async function registerGroups(
  program: Command,
  rt: Runtime,
  load: Set<string> | 'all',
): Promise<void> {
  const wanted = GROUPS.filter((g) => load === 'all' || load.has(g.name));
  // Several commands may live in one module (login and logout): register each module once.
  const modules = new Set(await Promise.all(wanted.map((g) => g.load())));
  for (const mod of modules) mod.register(program, rt);
  const registered = new Set(program.commands.map((c) => c.name()));
  for (const g of GROUPS) {
    if (!registered.has(g.name)) {
      program.command(g.name).description(g.summary).allowUnknownOption().allowExcessArguments();
    }
  }
  for (const cmd of program.commands) {
    const g = GROUPS.find((x) => x.name === cmd.name());
    if (g) cmd.helpGroup(`${g.topic}:`);
  }
}
