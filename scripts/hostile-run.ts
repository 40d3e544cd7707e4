// The long run of the invariant properties (test/e2e/invariants.test.ts runs a bounded number in `npm test`):
// `npm run hostile -- [--cases N] [--seed S] [--slow] [--procs P]` runs N cases (default 10,000) of every
// command against the hostile server, each with a rule fast-check picks, split over P processes (default 1), and
// prints the figure (cases, processes, time, the machine's load), and each case that broke an invariant (the
// command and the answers that broke it). `--slow` adds the rules whose cases take seconds (trickled and endless
// bodies, compressed bombs). Exit 1 when a case broke one.
//
// Each process runs its cases in-process (test/helpers/hostile/harness.ts), where a case that waits too long is
// caught by its own timer; a case stuck in synchronous code would hold that timer, and the whole process, for
// ever. So this script is a supervisor: its processes say which case they start and how it ended, and one that
// stays silent past a case's bound is killed, the case reported as stuck (with its command and rule), and a new
// process takes over from the next case. A process whose case hung asynchronously is replaced too, since the
// case's command still runs inside it.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Case } from '../test/helpers/hostile/commands.js';
import type { Mutation } from '../test/helpers/hostile/mutations.js';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '10000' },
    seed: { type: 'string' },
    slow: { type: 'boolean', default: false },
    procs: { type: 'string', default: '1' },
    // A worker's own: the cases [from, to) of the run.
    from: { type: 'string' },
    to: { type: 'string' },
  },
});
const total = Number(values.cases);
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
/** Cases are drawn in batches of this many, each from seed + its number: case k is the same in any process. */
const BATCH = 500;
/** Silence from a process running one case longer than this: it is stuck (the harness's own bound is 60 s). */
const STUCK_MS = 120_000;

/** What a worker tells the supervisor. */
type Message =
  | { started: number; line: string; rule: string }
  | { ended: number; ms: number; kind: string; report?: string; hung?: boolean }
  | { ready: number };

if (values.from !== undefined) await worker(Number(values.from), Number(values.to));
else await supervise();

async function worker(from: number, to: number): Promise<void> {
  const { version } = JSON.parse(readFileSync(resolve(import.meta.dirname, '../package.json'), 'utf8'));
  (globalThis as { __DLAKE_VERSION__?: string }).__DLAKE_VERSION__ ??= version;
  const fc = (await import('fast-check')).default;
  const { Harness } = await import('../test/helpers/hostile/harness.js');
  const { describeMutation } = await import('../test/helpers/hostile/mutations.js');
  const h = await Harness.start();
  const { arbitrary, commands } = await h.arbitrary({ slow: values.slow ?? false });
  const send = (m: Message) => process.send?.(m);
  send({ ready: commands });
  let batch = -1;
  let drawn: [Case, Mutation][] = [];
  for (let k = from; k < to; k++) {
    if (Math.floor(k / BATCH) !== batch) {
      batch = Math.floor(k / BATCH);
      drawn = fc.sample(arbitrary, { numRuns: BATCH, seed: seed + batch });
    }
    const [c, m] = drawn[k % BATCH]!;
    send({
      started: k,
      line: `dlake ${c.args.join(' ')}${c.tty ? ' (on a terminal)' : ''}`,
      rule: describeMutation(m),
    });
    const o = await h.run(c, m);
    const hung = o.result.code === null;
    send({
      ended: k,
      ms: o.ms,
      kind: m.rule.kind,
      report: o.violations.length ? h.report(c, m, o) : undefined,
      hung,
    });
    // The hung case's command still runs in this process: a fresh one takes the next case.
    if (hung) process.exit(3);
  }
  await h.close();
  process.exit(0);
}

async function supervise(): Promise<void> {
  const procs = Math.max(1, Number(values.procs));
  const started = performance.now();
  const loadAtStart = loadavg();
  const kinds = new Map<string, number>();
  let broken = 0;
  let done = 0;
  let slowest = 0;
  let announced = false;
  const report = (text: string) => process.stdout.write(`\n${text}\n`);

  /** Runs the cases [from, to) in processes, one after the other as a stuck or hung one is replaced. */
  const run = async (from: number, to: number): Promise<void> => {
    let next = from;
    while (next < to) {
      const before = next;
      next = await new Promise<number>((settle) => {
        const args = [
          '--cases',
          String(total),
          '--seed',
          String(seed),
          '--from',
          String(next),
          '--to',
          String(to),
        ];
        if (values.slow) args.push('--slow');
        const child = fork(import.meta.filename, args, { execArgv: process.execArgv, stdio: 'inherit' });
        let current: { k: number; line: string; rule: string } | undefined;
        let resumeAt = next;
        let watchdog: NodeJS.Timeout | undefined;
        const arm = () => {
          clearTimeout(watchdog);
          watchdog = setTimeout(() => {
            if (current) {
              broken++;
              done++;
              report(
                `${current.line}\nrule: ${current.rule}\nbroke: the process was stuck in this case for ${STUCK_MS / 1000} s (its own timer could not fire: synchronous work without end)`,
              );
              resumeAt = current.k + 1;
            }
            child.kill('SIGKILL');
          }, STUCK_MS);
        };
        arm();
        child.on('message', (m: Message) => {
          arm();
          if ('ready' in m) {
            if (!announced) {
              announced = true;
              process.stderr.write(
                `${total} cases over ${m.ready} commands in ${procs} process${procs > 1 ? 'es' : ''}, seed ${seed}${values.slow ? ', slow rules too' : ''}\n`,
              );
            }
          } else if ('started' in m) {
            current = { k: m.started, line: m.line, rule: m.rule };
          } else {
            current = undefined;
            resumeAt = m.ended + 1;
            done++;
            slowest = Math.max(slowest, m.ms);
            kinds.set(m.kind, (kinds.get(m.kind) ?? 0) + 1);
            if (m.report) {
              broken++;
              report(m.report);
            }
            if (done % 250 === 0) {
              const s = (performance.now() - started) / 1000;
              process.stderr.write(`${done} cases, ${broken} broke an invariant, ${s.toFixed(0)} s\n`);
            }
          }
        });
        child.on('exit', (code) => {
          clearTimeout(watchdog);
          // A process that died in a case (not killed here, not replaced after a hang): the case is what broke.
          if (current && resumeAt === current.k && code !== 3) {
            broken++;
            done++;
            report(
              `${current.line}\nrule: ${current.rule}\nbroke: the process died in this case (exit ${code})`,
            );
            resumeAt = current.k + 1;
          }
          settle(code === 0 && !current ? to : resumeAt);
        });
      });
      // A process that ran no case (its set-up failed or hung) would be started again for ever.
      if (next === before) throw new Error(`a process could not begin its cases (from case ${before})`);
    }
  };

  const share = Math.ceil(total / procs);
  await Promise.all(
    Array.from({ length: procs }, (_, i) => run(i * share, Math.min(total, (i + 1) * share))),
  );
  const seconds = (performance.now() - started) / 1000;
  const load = (l: number[]) => l.map((x) => x.toFixed(1)).join(' ');
  process.stderr.write(
    `${done} cases in ${procs} process${procs > 1 ? 'es' : ''} in ${seconds.toFixed(0)} s (${((seconds * 1000 * procs) / Math.max(1, done)).toFixed(0)} ms a case in a process, slowest ${(slowest / 1000).toFixed(1)} s), ${broken} broke an invariant\n` +
      `load average (1, 5, 15 min) at the start ${load(loadAtStart)}, at the end ${load(loadavg())}\n` +
      `rules: ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}\n`,
  );
  process.exit(broken ? 1 : 0);
}
