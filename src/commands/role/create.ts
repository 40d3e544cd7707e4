// `dlake role create NAME [--description D]`.
import type { Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { examples, send } from '../common.js';
import { defineCommand, type OptionsOf } from '../define.js';
import { printRole } from './shared.js';

const declaration = (role: Command) =>
  role
    .command('create')
    .description('Create a role (its name is unique and cannot be changed later)')
    .argument('<name>', 'role name')
    .option('--description <text>', 'what the role is for')
    .option('--dry-run', 'print the request instead of sending it')
    .addHelpText(
      'after',
      examples(
        'dlake role create loaders --description "Nightly ETL jobs"',
        'dlake role create auditors --dry-run',
      ),
    );

export const register = defineCommand(declaration, create);

async function create(ctx: Context, name: string, opts: OptionsOf<typeof declaration>): Promise<void> {
  if (!name.trim()) throw new UsageError('the role name is empty');
  const api = await import('../../api/roles.js');
  const body = { name: name.trim(), ...(opts.description ? { description: opts.description } : {}) };
  const created = await send(
    ctx,
    { request: api.createRoleRequest(body), send: (c) => api.createRole(c, body) },
    { dryRun: opts.dryRun },
  );
  if (!created) return;
  await printRole(ctx, created);
  ctx.ui.notice(`Created role ${created.name} (id ${created.id}).`);
}
