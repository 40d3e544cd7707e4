// `dlake reflection list|get|create|update|delete|refresh|summary`: reflections (acceleration), one file per
// verb. Listing all, refresh and summary need the Enterprise edition; the rest works on both.
import { defineGroup } from '../define.js';
import * as create from './create.js';
import * as remove from './delete.js';
import * as get from './get.js';
import * as list from './list.js';
import * as refresh from './refresh.js';
import * as summary from './summary.js';
import * as update from './update.js';

export const register = defineGroup([
  list.register,
  get.register,
  create.register,
  update.register,
  remove.register,
  refresh.register,
  summary.register,
]);
