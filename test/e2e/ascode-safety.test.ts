// What keeps apply safe: a prune that would break views that remain is refused unless --allow-breaking; what
// depends on a failure is skipped, naming it; a grant failure names every missing grantee; a signal stops the
// apply with a summary of where it stopped (spawned: signals need a process).
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ok } from '../helpers/ascode.js';
import { startDlake } from '../helpers/dlake.js';
import { expectFailure, useFixture } from '../helpers/fixture.js';
import { until } from '../helpers/until.js';

let tmp: string;

const writes = () => fx.emu.log.entries.filter((e) => e.method !== 'GET');

/** Writes definition files under `dir`: each entry a path and the file's body (kind and fields). */
function files(dir: string, defs: Array<[string[], string]>): string {
  for (const [path, body] of defs) {
    const file = join(dir, ...path.slice(0, -1), `${path.at(-1)}.yaml`);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, `path: ${JSON.stringify(path)}\n${body}`);
  }
  return dir;
}

const fx = useFixture();
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'dlake-safety-'));
});
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
});
beforeEach(() => {
  fx.emu.faults.clear();
});

describe('prune never breaks what remains', () => {
  let lake: string;
  beforeAll(async () => {
    lake = files(join(tmp, 'prune'), [
      [['Shop'], 'kind: space\n'],
      [['Shop', 'base'], 'kind: view\nsql: SELECT 1 AS n\n'],
      [['Shop', 'mid'], 'kind: view\nsql: SELECT n FROM base\nsqlContext: [Shop]\n'],
      [['Shop', 'top'], 'kind: view\nsql: SELECT n FROM Shop.mid\n'],
      [['Shop', 'lone'], 'kind: view\nsql: SELECT 2 AS n\n'],
      [['Ads'], 'kind: space\n'],
      [['Ads', 'funnel'], 'kind: view\nsql: SELECT n FROM Shop.base\n'],
    ]);
    ok(await fx.run(['apply', '--dir', lake]));
  });

  it('plan marks a delete that views which remain read; apply refuses it, exit 2, nothing written', async () => {
    unlinkSync(join(lake, 'Shop/base.yaml'));
    unlinkSync(join(lake, 'Shop/lone.yaml'));
    const plan = ok(await fx.run(['plan', '--dir', lake, '--prune']));
    expect(plan.stdout).toBe(
      [
        `Read 5 definition files in ${lake} (3 folders).`,
        '- delete view Shop/base',
        '    ! breaks Ads/funnel, Shop/mid',
        '- delete view Shop/lone',
        'Plan: 0 to create, 0 to update, 2 to delete.',
        '',
      ].join('\n'),
    );
    const json = JSON.parse(ok(await fx.run(['plan', '--dir', lake, '--prune', '-o', 'json'])).stdout);
    expect(json[0].breaks).toEqual([
      ['Ads', 'funnel'],
      ['Shop', 'mid'],
    ]);
    expect(json[1].breaks).toBeUndefined();
    fx.emu.log.clear();
    const r = await fx.run(['apply', '--dir', lake, '--prune', '--yes']);
    expectFailure(r, 2, 'error: nothing was applied: a delete would break views that remain');
    expect(r.stderr).toContain('  view Shop/base is read by Ads/funnel, Shop/mid\n');
    expect(r.stderr).toContain('hint: delete the files of those views too');
    expect(writes()).toEqual([]);
  });

  it('the readers deleted in the same apply: no longer breaking, all go, readers first', async () => {
    for (const f of ['Shop/mid.yaml', 'Shop/top.yaml', 'Ads/funnel.yaml']) unlinkSync(join(lake, f));
    const plan = ok(await fx.run(['plan', '--dir', lake, '--prune']));
    expect(plan.stdout).not.toContain('breaks');
    fx.emu.log.clear();
    const r = ok(await fx.run(['apply', '--dir', lake, '--prune', '--yes']));
    expect(r.stderr).toContain('Applied: 0 created, 0 updated, 5 deleted, 0 failed.');
    expect(writes().map((e) => e.method)).toEqual(Array(5).fill('DELETE'));
    // Restored for the next test.
    files(lake, [
      [['Shop', 'base'], 'kind: view\nsql: SELECT 1 AS n\n'],
      [['Shop', 'mid'], 'kind: view\nsql: SELECT n FROM base\nsqlContext: [Shop]\n'],
    ]);
    ok(await fx.run(['apply', '--dir', lake]));
  });

  it('--allow-breaking deletes it anyway', async () => {
    unlinkSync(join(lake, 'Shop/base.yaml'));
    fx.emu.log.clear();
    const r = ok(await fx.run(['apply', '--dir', lake, '--prune', '--yes', '--allow-breaking']));
    expect(r.stderr).toContain('Applied: 0 created, 0 updated, 1 deleted, 0 failed.');
    expect(writes().map((e) => e.method)).toEqual(['DELETE']);
  });
});

describe('failures say why', () => {
  it('what depends on a failure is skipped, counted apart, naming the failure; nothing is sent for it', async () => {
    const lake = files(join(tmp, 'skip'), [
      [['Skip'], 'kind: space\n'],
      [['Skip', 'bad'], 'kind: view\nsql: SELECT * FROM Nowhere.nothing\n'],
      [['Skip', 'reads_bad'], 'kind: view\nsql: SELECT * FROM Skip.bad\n'],
      [['Skip', 'reads_that'], 'kind: view\nsql: SELECT * FROM Skip.reads_bad\n'],
      [['Skip', 'fine'], 'kind: view\nsql: SELECT 1 AS x\n'],
    ]);
    fx.emu.log.clear();
    const r = await fx.run(['apply', '--dir', lake]);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(lines.sort()).toEqual([
      expect.stringMatching(/^error: Skip\/bad: .*Nowhere/),
      expect.stringMatching(
        /^error: Skip\/reads_bad: skipped: Skip\/bad, which it depends on, failed \(.*Nowhere/,
      ),
      expect.stringMatching(/^error: Skip\/reads_that: skipped: Skip\/bad, which it depends on, failed \(/),
    ]);
    expect(r.stderr).toContain('Applied: 2 created, 0 updated, 1 failed, 2 skipped.');
    expect(r.code).not.toBe(0);
    // Only the failed view was tried (its retry included): one POST each for the space, fine and bad's tries.
    const posts = writes().filter((e) => e.method === 'POST').length;
    expect(posts).toBeLessThanOrEqual(2 + 4);
    ok(await fx.run(['catalog', 'get', 'Skip/fine']));
    expect((await fx.run(['catalog', 'get', 'Skip/reads_bad'])).code).toBe(4);
  });

  it('what lies in a folder that failed stays skipped through the retry rounds', async () => {
    const lake = files(join(tmp, 'skip-folder'), [
      [['Skip2'], 'kind: space\n'],
      // The service refuses a folder name with a period.
      [['Skip2', 'bad.folder'], 'kind: folder\n'],
      [['Skip2', 'bad.folder', 'inside'], 'kind: view\nsql: SELECT 1 AS x\n'],
    ]);
    fx.emu.log.clear();
    const r = await fx.run(['apply', '--dir', lake]);
    expect(r.stderr).toContain('Applied: 1 created, 0 updated, 1 failed, 1 skipped.');
    expect(r.stderr).toMatch(
      /^error: Skip2\/bad\.folder\/inside: skipped: Skip2\/bad\.folder, which it depends on, failed \(/m,
    );
    // Two POSTs: the space and the folder; the view was never sent.
    expect(writes().map((e) => e.method)).toEqual(['POST', 'POST']);
  });

  it('a grant failure names every grantee the service lacks, and writes nothing for it', async () => {
    const lake = files(join(tmp, 'grants'), [[['Granted'], 'kind: space\n']]);
    mkdirSync(join(lake, '.grants'));
    writeFileSync(
      join(lake, '.grants', 'Granted.yaml'),
      'kind: grant\npath: [Granted]\nusers:\n  ghost1: [SELECT]\n  ghost2: [SELECT]\nroles:\n  no-such-role: [SELECT]\n',
    );
    fx.emu.log.clear();
    const r = await fx.run(['apply', '--dir', lake]);
    expectFailure(
      { ...r, stderr: r.stderr.replace(/^Applied.*\n/m, '') },
      4,
      'error: the grants on Granted: the service has no role no-such-role, user ghost1, user ghost2: nothing was granted on Granted',
    );
    expect(writes().filter((e) => e.path.includes('/grants'))).toEqual([]);
  });
});

describe('an interrupted apply says where it stopped', () => {
  it.each([
    ['SIGINT', 130, 'interrupted'],
    ['SIGTERM', 143, 'terminated \\(SIGTERM\\)'],
  ] as const)(
    '%s: the writes under way finish, the summary counts what was not started, exit %d',
    async (signal, code, words) => {
      const name = `Stop${signal}`;
      const defs: Array<[string[], string]> = [[[name], 'kind: space\n']];
      for (let i = 0; i < 30; i++) defs.push([[name, `v${i}`], `kind: view\nsql: SELECT ${i} AS n\n`]);
      const lake = files(join(tmp, name), defs);
      fx.emu.fault({ kind: 'latency', method: 'POST', path: '/api/v3/catalog', latencyMs: 150 });
      fx.emu.log.clear();
      const child = startDlake(['apply', '--dir', lake, '--concurrency', '2'], {
        env: { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url },
        killAfterMs: 30_000,
      });
      await until(() => writes().filter((e) => e.status === 200).length >= 3, 'some views are created');
      child.kill(signal);
      const r = await child.done;
      expect(r.code).toBe(code);
      const summary = /Applied: (\d+) created, 0 updated, 0 failed; (\d+) not started\./.exec(r.stderr);
      expect(summary, r.stderr).not.toBeNull();
      const created = Number(summary![1]);
      const notStarted = Number(summary![2]);
      // Every write that started finished: the service has exactly those, and the rest were never sent.
      expect(writes().filter((e) => e.method === 'POST')).toHaveLength(created);
      expect(created + notStarted).toBe(31);
      expect(notStarted).toBeGreaterThan(0);
      expect(r.stderr).toMatch(
        new RegExp(`^error: ${words}: the apply stopped, ${notStarted} entities were not started$`, 'm'),
      );
    },
  );
});
