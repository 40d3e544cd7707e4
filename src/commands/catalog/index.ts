// `dlake catalog ls|get|tree|create|update|delete|refresh|tags|wiki|grants|lineage`: browse and write catalog entities, one
// file per verb. A REF is a path (`Sales/"a/b"/view`) or an id (a UUID, or any text with --id).
import { defineGroup } from '../define.js';
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

export const register = defineGroup(
  [
    ls.register,
    get.register,
    tree.register,
    create.register,
    update.register,
    remove.register,
    refresh.register,
    tags.register,
    wiki.register,
    grants.register,
    lineage.register,
  ],
  `
A REF is a path or an id. A path is /-separated components; a component that
contains / or starts with " is written in double quotes, inner quotes doubled:
Sales/"a/b", Sales/"top ""best"".v2". A UUID is an id; --id makes any text an
id (e.g. service:/Samples/sales).`,
);
