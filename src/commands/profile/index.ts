// `dlake profile list|show|use|set|delete`: named connections (URL, auth URL, default output), one file per verb.
import { defineGroup } from '../define.js';
import * as remove from './delete.js';
import * as list from './list.js';
import * as set from './set.js';
import * as show from './show.js';
import * as use from './use.js';

export const register = defineGroup([
  list.register,
  show.register,
  use.register,
  set.register,
  remove.register,
]);
