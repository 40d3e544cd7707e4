// `dlake source list|get|types|create|update|delete`: sources and their per-type configs, one file per verb.
// Configs are checked against the type's fields before anything is sent; secrets come only from files, and are
// never printed.
import type { Command } from 'commander';
import type { Runtime } from '../../runtime.js';
import * as create from './create.js';
import * as remove from './delete.js';
import * as get from './get.js';
import * as list from './list.js';
import * as types from './types.js';
import * as update from './update.js';

const VERBS = [list, get, types, create, update, remove];

export function register(program: Command, rt: Runtime): void {
  const source = program.command('source').description('List, inspect, create and configure sources');
  for (const verb of VERBS) verb.register(source, rt);
}
