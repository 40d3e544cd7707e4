// `dlake reflection list|get|create|update|delete|refresh|summary`: reflections (acceleration), one file per
// verb. Listing all, refresh and summary need the Enterprise edition; the rest works on both.
import type { Command } from 'commander';
import type { Runtime } from '../../runtime.js';
import * as create from './create.js';
import * as remove from './delete.js';
import * as get from './get.js';
import * as list from './list.js';
import * as refresh from './refresh.js';
import * as summary from './summary.js';
import * as update from './update.js';

const VERBS = [list, get, create, update, remove, refresh, summary];

export function register(program: Command, rt: Runtime): void {
  const reflection = program
    .command('reflection')
    .description('Create, change, refresh and summarize reflections (acceleration)');
  for (const verb of VERBS) verb.register(reflection, rt);
}
