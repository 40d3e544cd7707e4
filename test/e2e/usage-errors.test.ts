// Every command of the tree, given an unknown option or none of its required arguments, is a usage error:
// exit 2, one `error:` line, a `usage: dlake …` line for that very command, and nothing on stdout. The tree
// is walked in-process, and each case runs in-process too, so commands added later are covered without
// touching this file. Usage errors come before any request or store access: the URL points nowhere and the
// config folder stays empty.
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Leaf, leafCommands } from '../helpers/command-tree.js';
import { type RunResult, tempConfigDir } from '../helpers/dlake.js';
import { runInProcess } from '../helpers/in-process.js';

/** Runs `jobs` with at most `limit` of them in flight. */
async function pool<T>(jobs: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return results;
}

const leaves = await leafCommands();
const cfg = tempConfigDir();
// Port 9 (discard) refuses connections: a command that wrongly got as far as a request fails fast with 7.
const env = { DLAKE_CONFIG_DIR: cfg.dir, DLAKE_URL: 'http://127.0.0.1:9' };

interface Case {
  name: string;
  leaf: Leaf;
  args: string[];
  /** The `error:` line must contain this. */
  error: string;
}

const cases: Case[] = leaves.flatMap((leaf) => {
  const title = ['dlake', ...leaf.words].join(' ');
  // With its required arguments and mandatory options given (placeholders), the unknown option is the only
  // problem; without the arguments, they are.
  const placeholders = leaf.requiredArgs.map(() => 'x');
  const list: Case[] = [
    {
      name: `${title} --no-such-option`,
      leaf,
      args: [...leaf.words, ...placeholders, ...leaf.mandatory, '--no-such-option'],
      error: "unknown option '--no-such-option'",
    },
  ];
  if (leaf.requiredArgs.length > 0) {
    list.push({
      name: `${title} (no arguments)`,
      leaf,
      args: [...leaf.words, ...leaf.mandatory],
      error: `missing required argument '${leaf.requiredArgs[0]}'`,
    });
  }
  return list;
});

const results = new Map<string, RunResult>();
beforeAll(async () => {
  const runs = await pool(
    cases.map((c) => () => runInProcess(c.args, { env })),
    4,
  );
  for (const [i, c] of cases.entries()) results.set(c.name, runs[i]!);
});
afterAll(() => cfg.cleanup());

it('finds the command tree, including commands nested two levels deep', () => {
  const names = leaves.map((l) => l.words.join(' '));
  expect(names).toEqual(expect.arrayContaining(['login', 'profile use', 'token exchange pat', 'api']));
  expect(leaves.find((l) => l.words.join(' ') === 'api')?.requiredArgs).toEqual(['method', 'path']);
});

describe('usage errors: exit 2, one error line, the usage line of the command, nothing on stdout', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const r = results.get(c.name)!;
    const report = `dlake ${c.args.join(' ')}\n--- exit ${r.code} (signal ${r.signal})\n--- stdout:\n${r.stdout}\n--- stderr:\n${r.stderr}`;
    const lines = r.stderr.split('\n');
    const errors = lines.filter((l) => l.startsWith('error:'));
    const usage = lines.filter((l) => l.startsWith('usage:'));
    expect(r.code, report).toBe(2);
    expect(r.stdout, report).toBe('');
    expect(errors, report).toHaveLength(1);
    expect(errors[0], report).toContain(c.error);
    expect(usage, report).toHaveLength(1);
    expect(usage[0]?.startsWith(`usage: ${['dlake', ...c.leaf.words].join(' ')} `), report).toBe(true);
  });

  it('touched nothing in the config folder', () => {
    expect(readdirSync(cfg.dir)).toEqual([]);
  });
});
