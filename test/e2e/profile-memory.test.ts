// A profile of a large query is summarised within bounded memory (docs/cli-contract.md "Operations
// insight"): the emulator's profile of 135,000 scan threads is about 100 MB of JSON; `dlake job profile`
// (the built bundle, spawned under /usr/bin/time) must summarise it with a peak RSS under 300 MiB.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { expect, it } from 'vitest';
import { BIN, cleanEnv } from '../helpers/dlake.js';
import { useFixture } from '../helpers/fixture.js';

const TIME = '/usr/bin/time';
const fx = useFixture();

/** Runs the bundle under GNU time: its exit, output, and peak resident set in KiB. */
function timed(args: string[]): Promise<{ code: number | null; stdout: string; maxRssKiB: number }> {
  return new Promise((resolve) => {
    const env = cleanEnv({ DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url });
    const p = spawn(TIME, ['-v', process.execPath, BIN, ...args], { env });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (code) => {
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      resolve({ code, stdout, maxRssKiB: rss ? Number(rss[1]) : Number.NaN });
    });
    p.stdin.end();
  });
}

it.skipIf(!existsSync(TIME))(
  'summarises a 100 MB profile with a peak under 300 MiB',
  async () => {
    const q = await fx.run(['sql', 'SELECT /* profile-threads:135000 */ COUNT(*) AS n FROM big']);
    expect(q.code, q.stderr).toBe(0);
    const id = fx.emu.jobs.list().at(-1)!.id;
    const r = await timed(['job', 'profile', id, '--top', '3', '-o', 'json']);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.phases[1]).toMatchObject({ phase: '01', threads: 135_000 });
    expect(summary.operators[0]).toMatchObject({ operator: '01-01', type: 'PARQUET_ROW_GROUP_SCAN' });
    console.log(`job profile of a 100 MB profile: peak RSS ${Math.round(r.maxRssKiB / 1024)} MiB`);
    expect(r.maxRssKiB / 1024).toBeLessThan(300);
  },
  180_000,
);
