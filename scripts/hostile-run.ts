// The long run of the invariant properties (test/e2e/invariants.test.ts runs a bounded number in `npm test`):
// `npm run hostile -- [--cases N] [--seed S] [--slow]` runs N cases (default 10,000) of every command against
// the hostile server, each with a rule fast-check picks, and prints the figure, the time, and each case that broke
// an invariant (the command and the answers that broke it). `--slow` adds the rules whose cases take seconds
// (trickled and endless bodies, compressed bombs). Exit 1 when a case broke one.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import fc from 'fast-check';

const { version } = JSON.parse(readFileSync(resolve(import.meta.dirname, '../package.json'), 'utf8'));
(globalThis as { __DLAKE_VERSION__?: string }).__DLAKE_VERSION__ ??= version;

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '10000' },
    seed: { type: 'string' },
    slow: { type: 'boolean', default: false },
  },
});
const total = Number(values.cases);
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);

const { Harness } = await import('../test/helpers/hostile/harness.js');
const h = await Harness.start();
const { arbitrary, commands } = await h.arbitrary({ slow: values.slow });
process.stderr.write(
  `${total} cases over ${commands} commands, seed ${seed}${values.slow ? ', slow rules too' : ''}\n`,
);
const started = performance.now();
const kinds = new Map<string, number>();
let broken = 0;
let done = 0;
let slowest = 0;
// fast-check draws the cases in batches (a sample of `total` at once would hold them all).
for (let batch = 0; done < total; batch++) {
  const n = Math.min(500, total - done);
  for (const [c, m] of fc.sample(arbitrary, { numRuns: n, seed: seed + batch })) {
    const o = await h.run(c, m);
    done++;
    slowest = Math.max(slowest, o.ms);
    kinds.set(m.rule.kind, (kinds.get(m.rule.kind) ?? 0) + 1);
    if (o.violations.length) {
      broken++;
      process.stdout.write(`\n${h.report(c, m, o)}\n`);
    }
    if (done % 250 === 0) {
      const s = (performance.now() - started) / 1000;
      process.stderr.write(`${done} cases, ${broken} broke an invariant, ${s.toFixed(0)} s\n`);
    }
  }
}
const seconds = (performance.now() - started) / 1000;
process.stderr.write(
  `${done} cases in ${seconds.toFixed(0)} s (${((seconds * 1000) / done).toFixed(0)} ms each, slowest ${(slowest / 1000).toFixed(1)} s), ${broken} broke an invariant\n` +
    `rules: ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}\n`,
);
await h.close();
process.exit(broken ? 1 : 0);
