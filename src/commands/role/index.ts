// `dlake role list|get|create|update|delete|add-member|remove-member`: roles and their members (Enterprise),
// one file per verb. System roles (PUBLIC, ADMIN) are refused for changes before any write.
import type { Command } from 'commander';
import type { Runtime } from '../../runtime.js';
import * as addMember from './add-member.js';
import * as create from './create.js';
import * as remove from './delete.js';
import * as get from './get.js';
import * as list from './list.js';
import * as removeMember from './remove-member.js';
import * as update from './update.js';

const VERBS = [list, get, create, update, remove, addMember, removeMember];

export function register(program: Command, rt: Runtime): void {
  const role = program
    .command('role')
    .description('List, create, change and delete roles, and their members');
  for (const verb of VERBS) verb.register(role, rt);
}
