// `dlake job get|wait|cancel|results|export`: a job's status, waiting for it to settle, cancelling it, and
// reading its rows a page at a time, all at once, or streamed to a file; one file per verb.
import { defineGroup } from '../define.js';
import * as cancel from './cancel.js';
import * as exportJob from './export.js';
import * as get from './get.js';
import * as results from './results.js';
import * as wait from './wait.js';

export const register = defineGroup([
  get.register,
  wait.register,
  cancel.register,
  results.register,
  exportJob.register,
]);
