// `dlake queue rules [--file F|-]` against the emulator: priority order, a whole-set replace with the tag,
// a stale file refused with the current tag, bad files refused before any request, community edition.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFailure, type Fixture, useCommunityFixture, useFixture } from '../helpers/fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'dlake-rules-'));
const fx = useFixture();
beforeAll(async () => {
  for (const name of ['etl', 'adhoc'])
    expect((await fx.run(['queue', 'create', '--name', name])).code).toBe(0);
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
});

const ruleset = () => fx.emu.queues!.ruleset;
const writes = () => fx.emu.log.entries.filter((e) => e.method !== 'GET');
function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}
const current = async () => JSON.parse((await fx.run(['queue', 'rules', '-o', 'json'])).stdout);

describe('dlake queue rules', () => {
  it('replaces the whole ruleset from a file, then prints it in priority order with the default last', async () => {
    const now = await current();
    const path = file('two.json', {
      tag: now.tag,
      rules: [
        { name: 'nightly', conditions: "USER in ('etl-bot')", action: 'PLACE', acceptName: 'etl' },
        {
          name: 'no-interns',
          conditions: "is_member('interns')",
          action: 'REJECT',
          rejectMessage: 'Not now',
        },
      ],
      defaultRule: now.defaultRule,
    });
    const r = await fx.run(['queue', 'rules', '--file', path]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Replaced the ruleset: 2 rule(s) and the default rule');
    expect(ruleset().rules.map((x) => x.name)).toEqual(['nightly', 'no-interns']);
    const table = await fx.run(['queue', 'rules']);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PRIORITY\s+NAME\s+ACTION\s+QUEUE\s+CONDITIONS\s+REJECT MESSAGE$/);
    expect(lines[1]).toMatch(/^1\s+nightly\s+PLACE\s+etl\s+USER in \('etl-bot'\)/);
    expect(lines[2]).toMatch(/^2\s+no-interns\s+REJECT\s+is_member\('interns'\)\s+Not now$/);
    expect(lines[3]).toMatch(/^default\s/);
    const json = await current();
    expect(Object.keys(json)).toEqual(['tag', 'rules', 'defaultRule']);
  });

  it('a file without a tag is sent with the tag just read; stdin works; a rule left out is gone', async () => {
    const now = await current();
    const body = JSON.stringify({ rules: [now.rules[1]], defaultRule: now.defaultRule });
    fx.emu.log.clear();
    const r = await fx.run(['queue', 'rules', '--file', '-'], { input: body });
    expect(r.code, r.stderr).toBe(0);
    expect(ruleset().rules.map((x) => x.name)).toEqual(['no-interns']);
    expect(fx.emu.log.find('PUT', '/api/v3/wlm/rule')).toHaveLength(1);
  });

  it('a stale file: exit 5 with the current tag in the hint, the ruleset untouched', async () => {
    const old = await current();
    expect((await fx.run(['queue', 'rules', '--file', file('bump.json', old)])).code).toBe(0);
    const before = JSON.stringify(ruleset());
    const r = await fx.run(['queue', 'rules', '--file', file('stale.json', { ...old, rules: [] })]);
    expectFailure(r, 5, `the ruleset was changed since tag "${old.tag}" was read`);
    expect(r.stderr).toContain(`hint: its current tag is "${ruleset().tag}"`);
    expect(JSON.stringify(ruleset())).toBe(before);
  });

  it('--dry-run prints the PUT and changes nothing', async () => {
    const now = await current();
    const r = await fx.run([
      'queue',
      'rules',
      '--file',
      file('dry.json', { ...now, rules: [] }),
      '--dry-run',
      '-o',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ method: 'PUT', body: { tag: now.tag, rules: [] } });
    expect(writes()).toEqual([]);
  });

  it('bad files: not JSON, wrong type, no defaultRule, missing file (exit 2, nothing sent)', async () => {
    expectFailure(
      await fx.run(['queue', 'rules', '--file', file('bad.json', '{rules:')]),
      2,
      'is not valid JSON',
    );
    expectFailure(
      await fx.run(['queue', 'rules', '--file', file('arr.json', [])]),
      2,
      'must hold a JSON object',
    );
    const wrongType = await fx.run([
      'queue',
      'rules',
      '--file',
      file('wt.json', { rules: 'x', defaultRule: {} }),
    ]);
    expectFailure(wrongType, 2, '"rules" must be an array');
    expectFailure(
      await fx.run(['queue', 'rules', '--file', file('nd.json', { rules: [] })]),
      2,
      '"defaultRule"',
    );
    expectFailure(await fx.run(['queue', 'rules', '--file', join(dir, 'missing.json')]), 2, 'cannot read');
    expect(writes()).toEqual([]);
  });

  it('a rule placing jobs on an unknown queue: the service refuses it (exit 2), nothing changed', async () => {
    const now = await current();
    const before = JSON.stringify(ruleset());
    const bad = { ...now, rules: [{ name: 'x', conditions: 'true', action: 'PLACE', acceptName: 'nope' }] };
    expectFailure(
      await fx.run(['queue', 'rules', '--file', file('unk.json', bad)]),
      2,
      'Queue [nope] not found.',
    );
    expect(JSON.stringify(ruleset())).toBe(before);
  });
});

describe('on a community-edition server', () => {
  let cx!: Fixture;
  useCommunityFixture((f) => {
    cx = f;
  });

  it('queue rules says so in one sentence (exit 4)', async () => {
    const sentence = "error: this service's edition does not offer workload queues (Enterprise only)";
    expectFailure(await cx.run(['queue', 'rules']), 4, sentence);
    expectFailure(
      await cx.run(['queue', 'rules', '--file', file('c.json', { rules: [], defaultRule: {} })]),
      4,
      sentence,
    );
  });
});
