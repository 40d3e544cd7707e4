// `dlake queue list|get|create|update|delete|rules`: workload-management queues and their ruleset (Enterprise, admin only), one file
// per verb. Sizes and durations go in and come out in human units (8GiB, 15m); -o json prints the API's numbers.
import { defineGroup } from '../define.js';
import * as create from './create.js';
import * as remove from './delete.js';
import * as get from './get.js';
import * as list from './list.js';
import * as rules from './rules.js';
import * as update from './update.js';

export const register = defineGroup([
  list.register,
  get.register,
  create.register,
  update.register,
  remove.register,
  rules.register,
]);
