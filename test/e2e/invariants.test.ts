// The contract's invariants held by every command against a hostile server (test/helpers/hostile): an exit
// code the contract documents, exactly one `error:` line and none forged by the server, no stack trace, no
// secret in force in any output or file, no escape sequence or bidirectional control from the server on a
// terminal, bounded time and memory, no file written outside the folders given. Every command line of the tree
// once as the emulator answers it, then cases fast-check draws (a command line, an output format, a terminal or
// not, and a rule by which the server changes its answers) from a fixed seed, so that each run checks the same
// ones; `npm run hostile` runs thousands with fresh seeds. A failure prints the command and the answers that
// broke it.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Case, caseArbitrary } from '../helpers/hostile/commands.js';
import { Harness } from '../helpers/hostile/harness.js';
import type { Mutation } from '../helpers/hostile/mutations.js';

/** Mutated cases in `npm test`: about 10 s (the long run is the script's). */
const MUTATED_CASES = 100;

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(() => h?.close());

it('finds every command of the tree', async () => {
  const { commands, lines } = await caseArbitrary(h.places);
  expect(commands).toBeGreaterThan(80);
  expect(lines.length).toBeGreaterThanOrEqual(commands);
});

it('every command line holds the invariants against the unchanged emulator', {
  timeout: 120_000,
}, async () => {
  const { lines } = await caseArbitrary(h.places);
  const reports: string[] = [];
  for (const [i, line] of lines.entries()) {
    const c = { ...line, tty: i % 2 === 1 };
    const o = await h.run(c, undefined);
    if (o.violations.length) reports.push(h.report(c, undefined, o));
  }
  expect(reports.join('\n\n')).toBe('');
});

it('every command holds them against answers mutated by rule', { timeout: 120_000 }, async () => {
  const { arbitrary } = await h.arbitrary({ slow: false });
  await fc.assert(
    fc.asyncProperty(arbitrary, async ([c, m]: [Case, Mutation]) => {
      const o = await h.run(c, m);
      if (o.violations.length) throw new Error(h.report(c, m, o));
    }),
    // No shrinking: the report already names the command and the answer that broke it.
    { numRuns: MUTATED_CASES, seed: 45, endOnFailure: true },
  );
});
