// The options that `sql` and the `job` verbs share: the export format and transport, the results pages fetched
// at once, the wait's limit. Printing and exporting the rows is src/export's.
import { Option } from '@commander-js/extra-typings';
import { EXPORT_FORMAT_NAMES } from '../export/formats.js';
import { PAGE_CONCURRENCY } from '../export/pages.js';
import { choiceOption, concurrencyOption, duration } from './options.js';

/** `--format` of an export: a closed set, so that completions offer it. */
export function formatOption() {
  return choiceOption(
    '--format <format>',
    `${EXPORT_FORMAT_NAMES.slice(0, -1).join(', ')} or ${EXPORT_FORMAT_NAMES.at(-1)} (default: from the file name, else csv; a further .gz gzips)`,
    EXPORT_FORMAT_NAMES,
  );
}

/** `--transport` of an export: Arrow Flight, REST, or Flight when an endpoint answers (export/flight/transport.ts). */
export function transportOption() {
  return choiceOption(
    '--transport <how>',
    'auto (Arrow Flight when an endpoint is configured and answers, else REST), flight or rest',
    ['auto', 'flight', 'rest'] as const,
  );
}

/**
 * `--no-clobber` of an export: a FILE that exists is kept and the export refused (exit 2), checked before the
 * query runs and again at the final rename (docs/cli-contract.md "Jobs, results and export").
 */
export function noClobberOption() {
  return new Option('--no-clobber', 'refuse (exit 2) rather than replace a FILE that exists');
}

/** `--concurrency` of the commands that page through results. */
export function pageConcurrencyOption(what = 'results pages fetched') {
  return concurrencyOption(what, PAGE_CONCURRENCY);
}

/** `--wait-timeout` of the commands that wait for a job before reading it (`--timeout` is per request). */
export function waitTimeoutOption() {
  return new Option(
    '--wait-timeout <duration>',
    'stop waiting for the job after this long, e.g. 10m (exit 7; the job keeps running)',
  ).argParser(duration('--wait-timeout'));
}
