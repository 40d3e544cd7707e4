// One error hierarchy for the whole tool. Each class carries the exit code of the CLI contract;
// src/runtime.ts is the only place that turns them into `error:`/`hint:` lines and an exit code.

export const ExitCode = {
  ok: 0,
  bug: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  conflict: 5,
  jobFailed: 6,
  service: 7,
  /** `plan --exit-code` found changes to make. */
  changes: 8,
  /** A local file could not be written (disk full, quota, I/O error, permission, read-only file system), or the credential store failed. */
  localIO: 9,
  /** The answer to a question dlake was asked is no: a privilege not held, a check that fails. */
  no: 10,
  interrupted: 130,
  /** SIGHUP (128 + 1), after the same clean-up as Ctrl-C. */
  hangup: 129,
  /** SIGTERM (128 + 15): CI runners, `docker stop`, Kubernetes. */
  terminated: 143,
} as const;

/**
 * What each exit code means: the one text of the tables in README.md and docs/cli-contract.md (rewritten by
 * `npm run docs`, checked by test/unit/exit-codes.test.ts) and of `dlake help exit-codes`.
 */
const EXIT_CODE_MEANINGS: { readonly [K in keyof typeof ExitCode]: string } = {
  ok: 'success',
  bug: 'unexpected error (a bug: a short message; the stack with `--debug`)',
  usage:
    'bad usage or invalid input (unknown option, malformed JSON, failed validation, refused confirmation)',
  auth: 'authentication or permission (401, 403, missing or expired credentials)',
  notFound: 'not found (404)',
  conflict: 'conflict (409: stale tag or version, name or path exists)',
  jobFailed: 'the job ended FAILED or CANCELED',
  service:
    'the service or the network failed (5xx after retries, connection refused, timeout, unreadable answer)',
  changes: '`plan --exit-code` found changes to make',
  localIO:
    'a local file could not be written (disk full, quota, I/O error, permission, read-only file system), or the credential store failed (none where one is required, locked, no answer)',
  no: 'the answer is no: `access why --privilege` found the privilege not held, `doctor` a check that fails',
  hangup: 'hung up (SIGHUP), after the same clean-up as Ctrl-C',
  interrupted: 'interrupted (Ctrl-C)',
  terminated:
    'terminated (SIGTERM), after the same clean-up as Ctrl-C (cancel the job waited on, no half-written `FILE`)',
};

/** Every exit code with its name in ExitCode and its meaning, in increasing order. */
export function exitCodes(): { name: keyof typeof ExitCode; code: number; meaning: string }[] {
  return (Object.keys(ExitCode) as (keyof typeof ExitCode)[])
    .map((name) => ({ name, code: ExitCode[name], meaning: EXIT_CODE_MEANINGS[name] }))
    .sort((a, b) => a.code - b.code);
}

/**
 * What to do next after an error, printed as its `hint:` line: words to print as they are, or an Advice. An error
 * has this one "what next"; src/output/hints.ts `hintFor` is the one place that turns it into the line.
 */
export type Hint = string | Advice;

/**
 * The next step after an error, as data: src/api knows which step applies but not the command line's words for
 * it, which src/output/hints.ts supplies.
 */
export type Advice =
  | { kind: 'log-in-again' }
  | { kind: 'wrong-client-secret' }
  | { kind: 'no-external-token-provider' }
  | { kind: 'jwt-expired' }
  | { kind: 'jwt-not-accepted' }
  | { kind: 'pat-refused' }
  | { kind: 'not-the-service' }
  | { kind: 'untrusted-certificate' }
  | { kind: 'certificate-name-mismatch' }
  | { kind: 'not-tls' }
  | { kind: 'ca-file-without-certificate' }
  | { kind: 'unreachable' }
  | { kind: 'timed-out' }
  | { kind: 'job-ended'; id: string }
  | { kind: 'job-not-ended'; id: string }
  | { kind: 'job-still-running'; id: string }
  | { kind: 'stale-user-version'; id: string; currentTag: string }
  | { kind: 'stale-queue-tag'; id: string; currentTag: string }
  | { kind: 'entity-example' }
  | { kind: 'pat-lifetime'; max: string }
  | { kind: 'list-roles' }
  | { kind: 'stale-ruleset-tag'; currentTag: string }
  /** A queue that rules still place jobs in (`rules`: their names; empty when they could not be read). */
  | { kind: 'rules-place-in-queue'; rules: string[] }
  | { kind: 'stale-reflection-tag'; id: string; currentTag: string }
  | { kind: 'list-reflections' }
  | { kind: 'reflection-refresh-pending'; id: string }
  | { kind: 'source-types'; type?: string }
  | { kind: 'list-sources' }
  /** A missing entity: where entities of its kind are listed (for the catalog, in its parent `parent`). */
  | { kind: 'list-entities'; list: EntityList; parent?: readonly string[] }
  /** A request the hosted edition has no endpoint for, refused before it is sent. */
  | { kind: 'not-on-hosted'; gap: HostedGap }
  /** A request only the hosted edition has an endpoint for. */
  | { kind: 'hosted-only' }
  /** A hosted request below a project, without one in force. */
  | { kind: 'needs-project' }
  /** A project id that is not a UUID. */
  | { kind: 'project-id' };

/** The kinds of entity a command lists. */
export type EntityList = 'catalog' | 'user' | 'role' | 'reflection' | 'queue' | 'engine' | 'project';

/** What the hosted edition lacks (docs/api-facts.md §13.6). */
export type HostedGap = 'queues' | 'queue-rules' | 'password-login';

/** The signals that stop dlake after a clean-up, and the exit code each ends with. */
export const STOP_SIGNALS = {
  SIGINT: ExitCode.interrupted,
  SIGTERM: ExitCode.terminated,
  SIGHUP: ExitCode.hangup,
} as const;
export type StopSignal = keyof typeof STOP_SIGNALS;

export interface ErrorDetails {
  /** What to do next, printed as `hint: …`: words, or an Advice when the words belong to the command line. */
  hint?: Hint;
  /** The service's `moreInfo`, printed with `-v`. */
  moreInfo?: string;
  /** Extra lines printed after the error (e.g. field-by-field validation messages). */
  details?: string[];
  cause?: unknown;
}

export class DlakeError extends Error {
  readonly exitCode: number = ExitCode.bug;
  readonly hint?: Hint;
  readonly moreInfo?: string;
  readonly details: string[];

  constructor(message: string, opts: ErrorDetails = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.hint = opts.hint;
    this.moreInfo = opts.moreInfo;
    this.details = opts.details ?? [];
  }
}

/**
 * The one way to wrap an error: `err` said in other words (`statement 2 (line 4): …`, `--timeout: …`), the same
 * class and exit code with its hint, details, moreInfo and cause kept, so that no wrapper drops one of them.
 */
export function rephrased<E extends DlakeError>(err: E, message: string, more: { hint?: Hint } = {}): E {
  const copy = Object.create(Object.getPrototypeOf(err), Object.getOwnPropertyDescriptors(err)) as E;
  Object.defineProperty(copy, 'message', { value: message, writable: true, configurable: true });
  if (more.hint !== undefined) Object.defineProperty(copy, 'hint', { value: more.hint });
  return copy;
}

/** The user's input is wrong: unknown option, malformed JSON, failed validation, refused confirmation. */
export class UsageError extends DlakeError {
  override readonly exitCode = ExitCode.usage;
}

/** Missing, invalid or expired credentials, or no permission (401/403). */
export class AuthError extends DlakeError {
  override readonly exitCode = ExitCode.auth;
}

export class NotFoundError extends DlakeError {
  override readonly exitCode = ExitCode.notFound;
}

/** 409: stale tag or version, name or path exists. */
export class ConflictError extends DlakeError {
  override readonly exitCode = ExitCode.conflict;
}

/** A job ended FAILED or CANCELED. */
export class JobFailedError extends DlakeError {
  override readonly exitCode = ExitCode.jobFailed;
}

/** The service or the network failed: 5xx after retries, refused connection, timeout, a body we cannot read. */
export class ServiceError extends DlakeError {
  override readonly exitCode = ExitCode.service;
}

/**
 * A file dlake writes (an export, a definition, the config store, standard output redirected to a file)
 * could not be written: the disk is full, a quota is reached, the device fails, permission is refused.
 */
export class LocalIOError extends DlakeError {
  override readonly exitCode = ExitCode.localIO;
}

/** Ctrl-C. */
export class InterruptedError extends DlakeError {
  override readonly exitCode = ExitCode.interrupted;
}

/** An exit code that is an answer, not a failure (`plan --exit-code`): no `error:` line is printed. */
export class QuietExit extends DlakeError {
  override readonly exitCode: number;

  constructor(exitCode: number) {
    super(`exit ${exitCode}`);
    this.exitCode = exitCode;
  }
}
