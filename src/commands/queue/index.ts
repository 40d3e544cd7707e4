// `dlake queue list|get|create|update|delete|rules`: workload-management queues and their ruleset (Enterprise, admin only), one file
// per verb. Sizes and durations go in and come out in human units (8GiB, 15m); -o json prints the API's numbers.
import type { Command } from 'commander';
import type { Runtime } from '../../runtime.js';
import * as create from './create.js';
import * as remove from './delete.js';
import * as get from './get.js';
import * as list from './list.js';
import * as rules from './rules.js';
import * as update from './update.js';

const VERBS = [list, get, create, update, remove, rules];

export function register(program: Command, rt: Runtime): void {
  const queue = program
    .command('queue')
    .description('Manage workload-management queues and the rules that place jobs on them');
  for (const verb of VERBS) verb.register(queue, rt);
}
