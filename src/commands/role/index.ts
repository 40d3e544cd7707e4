// `dlake role list|get|create|update|delete|add-member|remove-member`: roles and their members (Enterprise),
// one file per verb. System roles (PUBLIC, ADMIN) are refused for changes before any write.
import { defineGroup } from '../define.js';
import * as addMember from './add-member.js';
import * as create from './create.js';
import * as remove from './delete.js';
import * as get from './get.js';
import * as list from './list.js';
import * as removeMember from './remove-member.js';
import * as update from './update.js';

export const register = defineGroup([
  list.register,
  get.register,
  create.register,
  update.register,
  remove.register,
  addMember.register,
  removeMember.register,
]);
