// `dlake pat list|create|delete`: users' personal access tokens (Enterprise, PATs enabled), one file per verb.
import { defineGroup } from '../define.js';
import * as create from './create.js';
import * as remove from './delete.js';
import * as list from './list.js';

export const register = defineGroup([list.register, create.register, remove.register]);
