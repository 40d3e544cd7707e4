// `dlake user list|create|get|update|delete`: users of the service (Enterprise; get and update also work on the
// community edition), one file per verb. Updates read the user, change only what was given and send the tag
// just read.
import type { Command } from 'commander';
import type { Runtime } from '../../runtime.js';
import * as create from './create.js';
import * as remove from './delete.js';
import * as get from './get.js';
import * as list from './list.js';
import * as update from './update.js';

const VERBS = [list, create, get, update, remove];

export function register(program: Command, rt: Runtime): void {
  const user = program.command('user').description('List, create, inspect, update and delete users');
  for (const verb of VERBS) verb.register(user, rt);
}
