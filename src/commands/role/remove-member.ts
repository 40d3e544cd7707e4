// `dlake role remove-member ROLE (--user U|--role R)…`: one request for all the members given.
import type { Command } from '@commander-js/extra-typings';
import { examples } from '../common.js';
import { defineCommand } from '../define.js';
import { repeatable } from '../options.js';
import { changeMembership } from './shared.js';

const declaration = (role: Command) =>
  role
    .command('remove-member')
    .description('Take users and roles out of a role')
    .argument('<role>', 'role id or name')
    .option('--user <user>', 'a user, by name or id (repeatable)', repeatable('--user'))
    .option('--role <role>', 'a role, by name or id (repeatable)', repeatable('--role'))
    .option('--dry-run', 'print the request instead of sending it (names are still looked up)')
    .addHelpText(
      'after',
      examples(
        'dlake role remove-member loaders --user bob --user carol',
        'dlake role remove-member analysts --role loaders',
      ),
    );

export const register = defineCommand(declaration, (ctx, ref, opts) =>
  changeMembership(ctx, 'remove', ref, opts),
);
