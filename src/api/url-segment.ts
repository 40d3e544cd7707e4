// The one place where an id or a name becomes part of a URL path. Every api/ function that puts text from
// the user (or from an earlier answer) into a path goes through `segment`, so that no input can change
// which endpoint a request goes to:
// - `.` and `..` are refused: URL parsers resolve them (also percent-encoded, `%2E%2E`), so `job cancel ..`
//   would become `POST /api/v3/cancel`;
// - an empty value is refused: `user get ''` would become `GET /api/v3/user/by-name/` — another endpoint;
// - control characters are refused: no real id or name holds one, and they are invisible on a terminal;
// - everything else is percent-encoded as one segment (`/`, `?`, `#`, `%`, spaces and quotes survive).
// The refusal is a usage error (exit 2) raised while the request is being built: nothing is sent.
import { UsageError } from '../errors.js';

/**
 * What a job id is: letters, digits and hyphens, up to 128 characters (the service's are UUIDs,
 * docs/api-facts.md §4.1). Checked on the ids the service sends and on the one a Flight export quotes in SQL.
 */
export const JOB_ID = /^[0-9A-Za-z][0-9A-Za-z-]{0,127}$/;

// C0 controls, DEL and C1 controls.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** `value` as one percent-encoded URL path segment; `what` names it in the error (`job id`, `user name`). */
export function segment(value: string, what: string): string {
  const problem = segmentProblem(value);
  if (problem) {
    throw new UsageError(`invalid ${what} ${JSON.stringify(value)}: ${problem}`, {
      hint: 'nothing was sent to the service',
    });
  }
  return encodeURIComponent(value);
}

/** Several segments (a catalog path, component by component), each checked and encoded on its own. */
export function segments(values: readonly string[], what: string): string {
  return values.map((v) => segment(v, what)).join('/');
}

/** Why `value` cannot be a path segment, or undefined when it can. */
export function segmentProblem(value: string): string | undefined {
  if (value === '') return 'it is empty';
  if (value === '.' || value === '..') return `"${value}" would change the URL's path`;
  if (CONTROL.test(value)) return 'it contains a control character';
  return undefined;
}
