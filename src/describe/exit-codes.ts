// The exit codes of docs/cli-contract.md "Exit codes", with what each means, for `dlake describe` (and the
// agents reading it). Read off ExitCode so that a code added there without a meaning here fails the typecheck.
import { ExitCode } from '../errors.js';

const MEANINGS: Record<keyof typeof ExitCode, string> = {
  ok: 'success',
  bug: 'unexpected error (a bug in dlake)',
  usage:
    'bad usage or invalid input (unknown option, malformed JSON, failed validation, refused confirmation)',
  auth: 'authentication or permission (401, 403, missing or expired credentials)',
  notFound: 'not found (404)',
  conflict: 'conflict (409: stale tag or version, name or path exists)',
  jobFailed: 'the job ended FAILED or CANCELED',
  service:
    'the service or the network failed (5xx after retries, connection refused, timeout, a broken answer)',
  changes: '`plan --exit-code` found changes to make',
  localIO:
    'a local file could not be written (no space, quota, I/O error, permission, read-only file system)',
  interrupted: 'interrupted (SIGINT, Ctrl-C)',
  hangup: 'hung up (SIGHUP)',
  terminated: 'terminated (SIGTERM)',
};

export interface ExitCodeInfo {
  code: number;
  meaning: string;
}

/** Every exit code, in ascending order. */
export function exitCodes(): ExitCodeInfo[] {
  return (Object.keys(ExitCode) as (keyof typeof ExitCode)[])
    .map((k) => ({ code: ExitCode[k], meaning: MEANINGS[k] }))
    .sort((a, b) => a.code - b.code);
}
