// `dlake pat list|create|delete`: users' personal access tokens (Enterprise, PATs enabled), one file per verb.
import type { Command } from 'commander';
import type { Runtime } from '../../runtime.js';
import * as create from './create.js';
import * as remove from './delete.js';
import * as list from './list.js';

const VERBS = [list, create, remove];

export function register(program: Command, rt: Runtime): void {
  const pat = program.command('pat').description("List, create and revoke users' personal access tokens");
  for (const verb of VERBS) verb.register(pat, rt);
}
