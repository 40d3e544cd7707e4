// `dlake role add-member ROLE (--user U|--role R)…`: one request for all the members given.
import type { Command } from '@commander-js/extra-typings';
import type { Runtime } from '../../runtime.js';
import { examples } from '../common.js';
import { repeatable } from '../options.js';
import { changeMembership, type MemberOptions } from './shared.js';

export function register(role: Command, rt: Runtime): void {
  role
    .command('add-member')
    .description('Make users and roles members of a role')
    .argument('<role>', 'role id or name')
    .option('--user <user>', 'a user, by name or id (repeatable)', repeatable('--user'))
    .option('--role <role>', 'a role, by name or id (repeatable)', repeatable('--role'))
    .option('--dry-run', 'print the request instead of sending it (names are still looked up)')
    .addHelpText(
      'after',
      examples(
        'dlake role add-member loaders --user bob --user carol',
        'dlake role add-member analysts --role loaders',
      ),
    )
    .action(rt.action((ctx, ref: string, opts: MemberOptions) => changeMembership(ctx, 'add', ref, opts)));
}
