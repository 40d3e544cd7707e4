// `dlake user list|create|get|update|delete`: users of the service (Enterprise; get and update also work on the
// community edition), one file per verb. Updates read the user, change only what was given and send the tag
// just read.
import { defineGroup } from '../define.js';
import * as create from './create.js';
import * as remove from './delete.js';
import * as get from './get.js';
import * as list from './list.js';
import * as update from './update.js';

export const register = defineGroup([
  list.register,
  create.register,
  get.register,
  update.register,
  remove.register,
]);
