// The global options of docs/cli-contract.md "Global options, environment and precedence", declared once: the
// commander tree adds them from this list (src/runtime.ts), the argv scanner reads which of them take a value
// from it (src/argv.ts, also in the launcher, so this file imports no library), and their types, inferred from
// the flags as commander infers them, are what Context and the settings read.
import type { InferOptions } from '@commander-js/extra-typings';

/** The output formats of `-o` (and of a profile's `output` setting). */
export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The editions of the service (docs/api-facts.md §13), for `--edition` and a profile's `edition` setting. */
export const EDITIONS = ['software', 'cloud'] as const;

/** One global option: commander's flags (`-p, --profile <name>`), its help line and, if closed, its values. */
export interface GlobalOptionSpec {
  readonly flags: string;
  readonly help: string;
  /** Matched case-insensitively, offered by the completions (src/commands/options.ts choiceOption). */
  readonly choices?: readonly string[];
}

/** In the order `dlake --help` lists them. */
export const GLOBAL_OPTIONS = [
  {
    flags: '-p, --profile <name>',
    help: 'profile to use (env: DLAKE_PROFILE); commands that only read take several: -p a -p b, -p a,b, -p "prod-*"',
  },
  { flags: '--parallel <n>', help: 'with several profiles: how many run at once (default 4)' },
  { flags: '--url <url>', help: 'service base URL (env: DLAKE_URL)' },
  { flags: '--auth-url <url>', help: 'base URL of the token endpoint (env: DLAKE_AUTH_URL)' },
  { flags: '-o, --output <format>', help: 'output format', choices: OUTPUT_FORMATS },
  { flags: '--json', help: 'shorthand for -o json' },
  { flags: '--query <jmespath>', help: 'filter the JSON result with a JMESPath expression' },
  { flags: '-q, --quiet', help: 'print data and errors only' },
  { flags: '-v, --verbose', help: "print more detail (e.g. the service's moreInfo)" },
  { flags: '--debug', help: 'trace HTTP exchanges on stderr, secrets redacted (env: DLAKE_DEBUG=1)' },
  { flags: '--no-color', help: 'disable colour (also NO_COLOR)' },
  { flags: '--timeout <duration>', help: 'per-request timeout, e.g. 30s (env: DLAKE_TIMEOUT)' },
  { flags: '--ca-file <path>', help: 'extra trusted CA certificates, PEM (env: DLAKE_CA_FILE)' },
  { flags: '--insecure', help: 'skip TLS certificate verification (prints a warning)' },
  {
    flags: '--edition <edition>',
    help: 'service edition: software or cloud (env: DLAKE_EDITION)',
    choices: EDITIONS,
  },
  { flags: '--project-id <uuid>', help: "the hosted edition's project (env: DLAKE_PROJECT_ID)" },
  {
    flags: '--flight-url <url>',
    help: 'Arrow Flight endpoint of exports, grpc[+tls]://HOST:PORT (env: DLAKE_FLIGHT_URL)',
  },
] as const satisfies readonly GlobalOptionSpec[];

/** The options object commander builds from `specs`, typed as commander types each option it adds. */
type OptionsFrom<Specs extends readonly GlobalOptionSpec[], Acc = object> = Specs extends readonly [
  infer Head extends GlobalOptionSpec,
  ...infer Rest extends readonly GlobalOptionSpec[],
]
  ? OptionsFrom<
      Rest,
      InferOptions<
        Acc,
        Head['flags'],
        undefined,
        undefined,
        false,
        undefined,
        Head extends { choices: readonly (infer C)[] } ? C : undefined
      >
    >
  : Acc;

/** The global options as parsed: `profile?: string`, `output?: OutputFormat`, `color: boolean`, … */
export type GlobalOptions = OptionsFrom<typeof GLOBAL_OPTIONS>;
