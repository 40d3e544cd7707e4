// `dlake job list|get|why|profile|wait|cancel|results|export`: the job history, a job's status and why it ran
// as it did, its profile, waiting for it to settle, cancelling it, and reading its rows a page at a time, all
// at once, or streamed to a file; one file per verb.
import { defineGroup } from '../define.js';
import * as cancel from './cancel.js';
import * as exportJob from './export.js';
import * as get from './get.js';
import * as list from './list.js';
import * as profile from './profile.js';
import * as results from './results.js';
import * as wait from './wait.js';
import * as why from './why.js';

export const register = defineGroup([
  list.register,
  get.register,
  why.register,
  profile.register,
  wait.register,
  cancel.register,
  results.register,
  exportJob.register,
]);
