// `dlake project list|get`: the hosted edition's projects (docs/api-facts.md §13.3), at the organisation root.
import type { Command } from '@commander-js/extra-typings';
import type { Project } from '../api/engines.js';
import type { Context } from '../context.js';
import { detail, fieldRows } from '../output/view.js';
import { examples } from './common.js';
import { defineCommand, defineGroup } from './define.js';

export const register = defineGroup([
  defineCommand(
    (project: Command) =>
      project
        .command('list')
        .alias('ls')
        .description('List the projects of the organisation (hosted edition)')
        .addHelpText('after', examples('dlake project list', 'dlake project list -o json --query "[].id"')),
    list,
  ),
  defineCommand(
    (project: Command) =>
      project
        .command('get')
        .description('Show a project by id (a UUID) or by name (hosted edition)')
        .argument('<project>', 'project id or name')
        .addHelpText(
          'after',
          examples('dlake project get default-project', 'dlake project get UUID -o json'),
        ),
    get,
  ),
]);

/** Projects are the hosted edition's: on the self-hosted one the command is refused before any request. */
export async function requireHosted(ctx: Context, what: string): Promise<void> {
  const { hostedOnly } = await import('../api/roots.js');
  if (ctx.root().edition !== 'cloud') throw hostedOnly(what);
}

async function list(ctx: Context): Promise<void> {
  await requireHosted(ctx, 'projects');
  const { listProjects } = await import('../api/engines.js');
  const projects = await listProjects(await ctx.client());
  const current = ctx.root().projectId;
  await ctx.print({
    data: projects,
    view: {
      empty: 'No projects.',
      columns: [
        { header: 'NAME', value: (p: Project) => (p.id === current ? `${p.name} *` : p.name) },
        { header: 'STATE', value: (p: Project) => p.state },
        { header: 'ENGINES', value: (p: Project) => p.numberOfEngines },
        { header: 'CLOUD', value: (p: Project) => p.cloudId },
        { header: 'ID', value: (p: Project) => p.id },
      ],
    },
  });
}

async function get(ctx: Context, ref: string): Promise<void> {
  await requireHosted(ctx, 'projects');
  const { resolveProject } = await import('../api/engines.js');
  const project = await resolveProject(await ctx.client(), ref);
  await ctx.print(
    detail(
      project,
      fieldRows(project, [
        { field: 'id' },
        { field: 'name' },
        { field: 'state' },
        { field: 'type' },
        { field: 'cloudId' },
        { field: 'numberOfEngines' },
        { field: 'createdAt' },
      ]),
    ),
  );
}
