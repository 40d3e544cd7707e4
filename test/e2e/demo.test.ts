// `npm run demo`, the README's first command after install: it runs to its end against the embedded emulator, and
// what it shows is one consistent lake: the reflections it names sit on datasets it has read or shown.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO, userEnv } from '../helpers/package.js';

const run = promisify(execFile);

describe('npm run demo', () => {
  it('runs every step, and names only reflections on datasets it has read or shown', async () => {
    const { stdout } = await run('npm', ['run', '--silent', 'demo'], { cwd: REPO, env: userEnv() });
    expect(stdout).toContain('That was dlake.');
    expect(stdout).not.toContain('The demo stopped early.');
    const steps = stdout.split(/\n(?=\d+\. )/);
    const tree = steps.find((s) => s.includes('$ dlake catalog tree'))!;
    // What the demo's queries read: the generated table `big`, and its own view.
    const read = [...stdout.matchAll(/\$ .*dlake sql '.* FROM ([\w.]+)/g)].map((m) =>
      m[1]!.replaceAll('.', '/'),
    );
    expect([...new Set(read)]).toEqual(['Sales/by_region', 'big']);
    // The tour of the newer commands: a Flight export, the job history, top, doctor and the agents' server.
    expect(stdout).toMatch(
      /wrote 20,000 rows to big\.parquet \(PARQUET\) in .* over Arrow Flight \(grpc:\/\//,
    );
    expect(stdout).toMatch(/\$ dlake job list --status FAILED --since 24h --limit 3\n {3}JOB ID +STATE/);
    expect(stdout).toContain('$ dlake top --once');
    expect(stdout).toMatch(/\$ dlake doctor\n(.*\n)* {3}every check passed/);
    expect(stdout).toContain('$ dlake describe mcp');
    // The reflections a job reports (`reflections chosen NAME (TYPE) on PATH (ID)`) sit on those datasets, not on
    // datasets that exist in no catalog (`Samples/finance/invoices.parquet`, `Marketing/curated/orders`).
    const on = [...stdout.matchAll(/reflections \w+ +\S+ \((?:RAW|AGGREGATION)\) on (\S+) \(/g)].map(
      (m) => m[1]!,
    );
    expect(on.length).toBeGreaterThan(0);
    for (const path of on) expect(read, path).toContain(path);
    expect(tree).toMatch(/by_region/);
    // The reflections it lists are the one it made, on the view its catalog tree shows.
    const listed = steps.find((s) => s.includes('$ dlake reflection list'))!;
    expect(listed.split('\n').filter((l) => /^ {3}\S/.test(l) && !l.includes('$ '))).toEqual([
      expect.stringMatching(/^ {3}NAME +TYPE +ENABLED$/),
      expect.stringMatching(/^ {3}Aggregation Reflection +AGGREGATION +true$/),
    ]);
  }, 120_000);
});
