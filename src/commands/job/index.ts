// `dlake job get|wait|cancel|results|export`: a job's status, waiting for it to settle, cancelling it, and
// reading its rows a page at a time, all at once, or streamed to a file; one file per verb.
import type { Command } from 'commander';
import type { Runtime } from '../../runtime.js';
import * as cancel from './cancel.js';
import * as exportJob from './export.js';
import * as get from './get.js';
import * as results from './results.js';
import * as wait from './wait.js';

const VERBS = [get, wait, cancel, results, exportJob];

export function register(program: Command, rt: Runtime): void {
  const job = program.command('job').description('Inspect, wait for, cancel and export SQL jobs');
  for (const verb of VERBS) verb.register(job, rt);
}
