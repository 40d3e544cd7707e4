// The rules by which the hostile server (./server.ts) changes the emulator's answers, and the fast-check
// arbitrary that picks one per case. A mutation is plain data, so that a failing case prints it as it is: the
// command, and the answer that broke it (docs/cli-contract.md "Output bounds", "Files dlake reads and writes").
import fc from 'fast-check';

/** What the server sends in place of a string's end, a number or a time. */
export const ESCAPES = [
  // Sets the window title.
  '\u001b]0;PWNED\u0007',
  // Clears the screen and homes the cursor.
  '\u001b[2J\u001b[H',
  // The C1 control sequence introducer (one byte in Latin-1 terminals).
  '\u009b31m',
  // A right-to-left override and an isolate: reorder what follows on the screen.
  '\u202eevil\u202c',
  '\u2066',
  // A line that would pass for dlake's own.
  '\nerror: forged by the server\nhint: run `rm -rf ~`',
  '\r\nerror: forged after a carriage return',
] as const;

export const HUGE_NUMBERS = [
  '1e308',
  '-1e308',
  '18446744073709551616',
  '123456789012345678901234567890',
  '-1',
  '8640000000000001',
  '1e21',
  '0.000000000000000000001',
] as const;

export const BAD_TIMES = [
  '2026-02-30T00:00:00Z',
  '+275760-09-13T00:00:00.001Z',
  '0000-00-00',
  'yesterday',
  '',
  1e20,
  -8.64e15 - 1,
  8.64e15 + 1,
] as const;

/** Which requests of a case a rule hits: from the `from`-th request (0 the first), `times` of them. */
export interface Reach {
  from: number;
  times: number | 'all';
}

export type Rule =
  /** That status, its body an error that echoes the secret and carries escapes and forged lines. */
  | { kind: 'status'; status: number; body: 'error-json' | 'empty' | 'text' | 'html'; retryAfter?: string }
  /** The headers and part of the body, then the connection reset (or reset before any byte). */
  | { kind: 'reset'; after: 'nothing' | 'headers' | 'half' }
  /** 200 with a body that is not what the endpoint answers. */
  | { kind: 'garbage'; what: 'bytes' | 'html' | 'truncated-json' | 'invalid-utf8' | 'wrong-json' }
  /** The real body a byte at a time, slower than any timeout. */
  | { kind: 'trickle' }
  /** A body that never ends. */
  | { kind: 'endless' }
  /** Listings: token and page games. */
  | {
      kind: 'pages';
      how: 'empty-with-token' | 'repeat-token' | 'cycle-tokens' | 'identical-pages' | 'ignore-offset';
    }
  /** Every number of a JSON answer replaced by this text. */
  | { kind: 'numbers'; text: string }
  /** Every time-like field (by name, or ISO-looking text) replaced by this. */
  | { kind: 'times'; value: string | number }
  /** Every string of a JSON answer this long (within a budget per answer). */
  | { kind: 'huge-strings'; length: number }
  /** An answer nested this deep. */
  | { kind: 'nesting'; depth: number }
  /** Every string of a JSON answer (keys of objects too) followed by this text. */
  | { kind: 'escapes'; text: string }
  /** Every JSON answer's strings replaced by the secret in force. */
  | { kind: 'secret-everywhere' }
  /** A compressed answer that inflates far beyond its size (a profile zip, or gzip content-encoding). */
  | { kind: 'bomb' };

export interface Mutation {
  rule: Rule;
  reach: Reach;
}

const STATUSES = [
  301, 302, 304, 307, 400, 401, 403, 404, 405, 406, 409, 410, 413, 415, 422, 429, 431, 500, 501, 502, 503,
  504, 507, 599,
];

/**
 * Retry-After values: none of them in the range dlake honours and waits out (1 s … 30 s, docs/cli-contract.md
 * "Retries"), so a case stays quick: 0, 1 second, a day, nonsense, negative, a far date.
 */
const RETRY_AFTER = ['0', '1', '86400', 'soon', '-5', '1e400', 'Wed, 21 Oct 2099 07:28:00 GMT'];

export interface ArbitraryOptions {
  /** Include the rules whose cases take seconds each (trickle, endless bodies, bombs). */
  slow: boolean;
}

export function ruleArbitrary(opts: ArbitraryOptions): fc.Arbitrary<Rule> {
  const quick: fc.Arbitrary<Rule>[] = [
    fc.record({
      kind: fc.constant('status' as const),
      status: fc.constantFrom(...STATUSES),
      body: fc.constantFrom(
        'error-json' as const,
        'error-json' as const,
        'empty' as const,
        'text' as const,
        'html' as const,
      ),
      retryAfter: fc.option(fc.constantFrom(...RETRY_AFTER), { nil: undefined }),
    }),
    fc.record({
      kind: fc.constant('reset' as const),
      after: fc.constantFrom('nothing' as const, 'headers' as const, 'half' as const),
    }),
    fc.record({
      kind: fc.constant('garbage' as const),
      what: fc.constantFrom(
        'bytes' as const,
        'html' as const,
        'truncated-json' as const,
        'invalid-utf8' as const,
        'wrong-json' as const,
      ),
    }),
    fc.record({
      kind: fc.constant('pages' as const),
      how: fc.constantFrom(
        'empty-with-token' as const,
        'repeat-token' as const,
        'cycle-tokens' as const,
        'identical-pages' as const,
        'ignore-offset' as const,
      ),
    }),
    fc.record({ kind: fc.constant('numbers' as const), text: fc.constantFrom(...HUGE_NUMBERS) }),
    fc.record({ kind: fc.constant('times' as const), value: fc.constantFrom(...BAD_TIMES) }),
    fc.record({
      kind: fc.constant('huge-strings' as const),
      length: fc.constantFrom(3_000, 100_000, 2_000_000),
    }),
    fc.record({ kind: fc.constant('nesting' as const), depth: fc.constantFrom(1_001, 20_000, 200_000) }),
    fc.record({ kind: fc.constant('escapes' as const), text: fc.constantFrom(...ESCAPES) }),
    fc.constant({ kind: 'secret-everywhere' as const }),
  ];
  const slow: fc.Arbitrary<Rule>[] = [
    fc.constant({ kind: 'trickle' as const }),
    fc.constant({ kind: 'endless' as const }),
    fc.constant({ kind: 'bomb' as const }),
  ];
  return fc.oneof(...quick, ...(opts.slow ? slow : []));
}

export function mutationArbitrary(opts: ArbitraryOptions): fc.Arbitrary<Mutation> {
  return fc.record({
    rule: ruleArbitrary(opts),
    reach: fc.record({
      from: fc.constantFrom(0, 0, 1, 2, 3),
      times: fc.constantFrom<number | 'all'>(1, 2, 'all', 'all'),
    }),
  });
}

/** A mutation as one line of a failure report. */
export function describeMutation(m: Mutation): string {
  return `${JSON.stringify(m.rule)} on requests ${m.reach.from}…${m.reach.times === 'all' ? 'end' : m.reach.from + m.reach.times - 1}`;
}
