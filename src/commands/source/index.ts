// `dlake source list|get|types|create|update|delete`: sources and their per-type configs, one file per verb.
// Configs are checked against the type's fields before anything is sent; secrets come only from files, and are
// never printed.
import { defineGroup } from '../define.js';
import * as create from './create.js';
import * as remove from './delete.js';
import * as get from './get.js';
import * as list from './list.js';
import * as types from './types.js';
import * as update from './update.js';

export const register = defineGroup([
  list.register,
  get.register,
  types.register,
  create.register,
  update.register,
  remove.register,
]);
