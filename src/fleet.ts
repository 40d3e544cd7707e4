// One command across several profiles (docs/cli-contract.md "Fleets"): `-p` repeated, comma-separated or a glob
// on a command that only reads runs it once per profile, concurrently (at most --parallel, default 4), each run
// a whole dlake run of its own — its own Context, so its own credentials, edition and pacing — whose printed
// result is collected (World.collect) rather than written. The results are merged into one: a table or CSV
// with a leading PROFILE column, one JSON array of {profile, ok, data | error}, NDJSON lines carrying `profile`.
// One profile's failure stops no other; the exit code is the first failing profile's, in the order given.
import { ownsProfileOption } from './argv.js';
import type { World } from './context.js';
import { ExitCode, UsageError } from './errors.js';
import type { ProfileRun } from './output/fleet.js';

/** How a run of dlake is started: src/runtime.ts runCli, handed in (it is the layer above this one). */
type Run = (argv: string[], world: World) => Promise<number>;

/** The profiles `-p` names on a command line, and the command line without them. */
interface ProfileArgs {
  /** Each -p value in the order given (a value may be `a,b` or a glob). */
  values: string[];
  /** The arguments without any -p/--profile and its value. */
  rest: string[];
}

/** Default of --parallel. */
const DEFAULT_PARALLEL = 4;

/**
 * The commands that only read and so may run across profiles: every listing (`list`, `ls`) and `get`, and
 * these. Anything else (a command that changes something, or writes a file) takes one profile.
 */
const READING = new Set([
  'search',
  'job why',
  'reflection summary',
  'access why',
  'whoami',
  'doctor',
  'plan',
  'catalog tree',
  'catalog lineage',
]);

/** Whether `words` (the command line's command words) name a command that may run across profiles. */
function readsOnly(words: readonly string[]): boolean {
  const [group, verb] = words;
  if (group === undefined || group === 'profile') return false;
  if (verb === 'list' || verb === 'ls' || verb === 'get') return true;
  return READING.has(group) || READING.has(`${group} ${verb}`);
}

/**
 * Every `-p NAME`, `-pNAME`, `--profile NAME` and `--profile=NAME` before `--`, and the arguments without them.
 * A command that owns `-p` (`mcp`, `diff`, `agents install`: src/argv.ts) is given its profiles: its command
 * lines are never a fleet.
 */
function profileArgs(args: readonly string[], words: readonly string[]): ProfileArgs {
  const values: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--' || ownsProfileOption(words)) {
      rest.push(...args.slice(i));
      break;
    }
    if (arg === '-p' || arg === '--profile') {
      if (i + 1 < args.length) values.push(args[++i]!);
      else rest.push(arg);
    } else if (arg.startsWith('--profile=')) {
      values.push(arg.slice('--profile='.length));
    } else if (/^-p./.test(arg)) {
      values.push(arg.slice(2));
    } else if (/^-[qv]+p/.test(arg)) {
      // `-qp NAME`, `-vpNAME`: the flags before p stay, p takes the rest of the group or the next word.
      const at = arg.indexOf('p');
      rest.push(arg.slice(0, at));
      if (at < arg.length - 1) values.push(arg.slice(at + 1));
      else if (i + 1 < args.length) values.push(args[++i]!);
    } else {
      rest.push(arg);
    }
  }
  return { values, rest };
}

const isGlob = (name: string) => /[*?]/.test(name);

/** A profile-name glob (`*` any run of characters, `?` one) as a regular expression. */
function globPattern(glob: string): RegExp {
  const body = [...glob]
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`);
}

/**
 * The fleet a command line names, or undefined when it names one profile (or none): the names `-p` gives,
 * globs matched against `stored` (the profiles of the config file), each name once, in the order given. A glob
 * alone is a fleet even when it matches one profile: its output has the fleet's shape either way.
 */
export function fleetOf(
  args: readonly string[],
  words: readonly string[],
  stored: () => string[],
): { profiles: string[]; rest: string[] } | undefined {
  const { values, rest } = profileArgs(args, words);
  const names = values.flatMap((v) => v.split(',')).map((n) => n.trim());
  if (names.length < 2 && !names.some(isGlob)) return undefined;
  const profiles: string[] = [];
  for (const name of names) {
    if (name === '') throw new UsageError(`-p ${values.join(' -p ')}: an empty profile name`);
    const matched = isGlob(name) ? stored().filter((p) => globPattern(name).test(p)) : [name];
    if (matched.length === 0) {
      throw new UsageError(`-p ${name} matches no profile`, {
        hint: `the profiles: ${stored().join(', ') || 'none (create one with `dlake profile set NAME --url URL`)'}`,
      });
    }
    for (const p of matched) if (!profiles.includes(p)) profiles.push(p);
  }
  return { profiles, rest };
}

/** `--parallel N` of the command line (a whole number from 1), else the default. */
function parallelOf(args: readonly string[]): number {
  let text: string | undefined;
  for (let i = 0; i < args.length && args[i] !== '--'; i++) {
    if (args[i] === '--parallel') text = args[i + 1];
    else if (args[i]!.startsWith('--parallel=')) text = args[i]!.slice('--parallel='.length);
  }
  if (text === undefined) return DEFAULT_PARALLEL;
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(`--parallel must be a whole number of at least 1, not "${text}"`);
  }
  return n;
}

/**
 * Runs the command of `rest` once per profile through `run`, at most --parallel at once, and writes the merged
 * result to `world`'s streams. Returns the exit code: 0 when every profile succeeded, else the first failing
 * profile's in the order given.
 */
export async function runFleet(
  fleet: { profiles: string[]; rest: string[] },
  words: readonly string[],
  world: World,
  run: Run,
  merge: (runs: ProfileRun[]) => Promise<void>,
): Promise<number> {
  if (!readsOnly(words)) {
    throw new UsageError(
      `\`dlake ${words.slice(0, 2).join(' ')}\` runs on one profile at a time, not on ${fleet.profiles.length}`,
      {
        hint: 'several profiles are for commands that only read (listings, get, search, job list/why, plan…)',
      },
    );
  }
  const parallel = parallelOf(fleet.rest);
  const runs: ProfileRun[] = new Array(fleet.profiles.length);
  let next = 0;
  const worker = async () => {
    while (next < fleet.profiles.length) {
      const i = next++;
      runs[i] = await runOne(fleet.profiles[i]!, fleet.rest, world, run);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, fleet.profiles.length) }, worker));
  await merge(runs);
  const failed = runs.filter((r) => r.code !== ExitCode.ok);
  if (failed.length) {
    world.streams.stderr.write(`${failed.length} of ${runs.length} profiles failed\n`);
  }
  return failed[0]?.code ?? ExitCode.ok;
}

/** One profile's run: the command line with `--profile NAME`, its output kept, its printed results collected. */
async function runOne(profile: string, rest: string[], world: World, run: Run): Promise<ProfileRun> {
  const result: ProfileRun = { profile, code: 0, stdout: '', stderr: '', printed: [] };
  const { Writable, Readable } = await import('node:stream');
  const capture = (key: 'stdout' | 'stderr') =>
    new Writable({
      write(chunk: Buffer | string, _enc, done) {
        result[key] += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
        done();
      },
    }) as unknown as NodeJS.WriteStream;
  result.code = await run(['node', 'dlake', '--profile', profile, ...rest], {
    ...world,
    streams: {
      stdin: Readable.from([]) as unknown as NodeJS.ReadStream,
      stdout: capture('stdout'),
      stderr: capture('stderr'),
    },
    collect: (r, format) => {
      result.printed.push({ r, format });
    },
  });
  return result;
}
