// `dlake catalog ls|get|tree|create|update|delete|refresh|tags|wiki|grants|lineage`: browse and write catalog entities, one
// file per verb. A REF is a path (`Sales/"a/b"/view`) or an id (a UUID, or any text with --id).
import type { Command } from 'commander';
import type { Runtime } from '../../runtime.js';
import * as create from './create.js';
import * as remove from './delete.js';
import * as get from './get.js';
import * as grants from './grants.js';
import * as lineage from './lineage.js';
import * as ls from './ls.js';
import * as refresh from './refresh.js';
import * as tags from './tags.js';
import * as tree from './tree.js';
import * as update from './update.js';
import * as wiki from './wiki.js';

const VERBS = [ls, get, tree, create, update, remove, refresh, tags, wiki, grants, lineage];

export function register(program: Command, rt: Runtime): void {
  const catalog = program
    .command('catalog')
    .description('Browse, read and write catalog entities (spaces, folders, datasets)')
    .addHelpText(
      'after',
      `
A REF is a path or an id. A path is /-separated components; a component that contains / or starts
with " is written in double quotes, inner quotes doubled: Sales/"a/b", Sales/"top ""best"".v2".
A UUID is an id; --id makes any text an id (e.g. service:/Samples/sales).`,
    );
  for (const verb of VERBS) verb.register(catalog, rt);
}
