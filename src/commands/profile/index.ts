// `dlake profile list|show|use|set|delete`: named connections (URL, auth URL, default output), one file per verb.
import type { Command } from 'commander';
import type { Runtime } from '../../runtime.js';
import * as remove from './delete.js';
import * as list from './list.js';
import * as set from './set.js';
import * as show from './show.js';
import * as use from './use.js';

const VERBS = [list, show, use, set, remove];

export function register(program: Command, rt: Runtime): void {
  const profile = program.command('profile').description('Manage connection profiles');
  for (const verb of VERBS) verb.register(profile, rt);
}
