// The operations layer (docs/architecture.md "One operations layer") against the emulator: each operation
// called as the commands and the MCP server call it, returning data and printing nothing, and each one's
// AbortSignal reaching its requests: aborted before it starts, it ends interrupted with nothing sent, and a
// history query it submitted is cancelled on the service.
import { Writable } from 'node:stream';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Context } from '../../src/context.js';
import { InterruptedError } from '../../src/errors.js';
import { explainAccess } from '../../src/ops/access.js';
import { getEntity, getLineage } from '../../src/ops/catalog.js';
import { explainJob, jobFilter, listJobs } from '../../src/ops/jobs.js';
import { reflectionSummaryList } from '../../src/ops/reflections.js';
import { searchCatalog } from '../../src/ops/search.js';
import { runSql } from '../../src/ops/sql.js';
import { parseRef } from '../../src/util/catalog-ref.js';
import { cleanEnv } from '../helpers/dlake.js';
import { useFixture } from '../helpers/fixture.js';

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}

let out: Capture;
let ctx: Context;

const fx = useFixture({ jobHistory: 30 });
beforeAll(async () => {
  const ok = async (args: string[]) => expect((await fx.run(args)).code).toBe(0);
  await ok(['api', 'POST', 'catalog', '--data', JSON.stringify({ entityType: 'space', name: 'Sales' })]);
  await ok(['user', 'create', 'bob']);
});
beforeEach(async () => {
  out = new Capture();
  const streams = {
    stdin: process.stdin,
    stdout: out as unknown as NodeJS.WriteStream,
    stderr: out as unknown as NodeJS.WriteStream,
  };
  const env = cleanEnv({ DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url });
  ctx = await Context.create({ color: false }, { env, streams });
  fx.emu.log.clear();
});

const aborted = () => AbortSignal.abort(new Error('stopped by the test'));

describe('operations', () => {
  it('return data as the commands print it, and print nothing themselves', async () => {
    // Jobs submitted before now only: the listings' own queries are not among them.
    const until = new Date().toISOString();
    const jobs = await listJobs(ctx, jobFilter({ limit: 5, until }, Date.now()));
    const printed = JSON.parse(
      (await fx.run(['job', 'list', '--limit', '5', '--until', until, '-o', 'json'])).stdout,
    );
    expect(jobs).toHaveLength(5);
    expect(jobs.map((j) => j.id)).toEqual(printed.map((j: { id: string }) => j.id));
    const ran = fx.emu.jobs.list().at(-1)!;
    expect(await explainJob(ctx, ran.id)).toMatchObject({
      job: { id: ran.id, state: 'COMPLETED' },
      warnings: [],
    });
    const entity = JSON.parse((await fx.run(['catalog', 'get', 'Sales', '-o', 'json'])).stdout);
    expect((await getEntity(ctx, parseRef('Sales'))).id).toBe(entity.id);
    expect(out.text).toBe('');
  });

  it('explainJob: a history it cannot read is a warning it returns, which job why says on stderr', async () => {
    const ran = fx.emu.jobs.list().at(-1)!;
    // The history query's submission answered with the wrong shape: the job's status alone answers.
    const unreadable = () =>
      fx.emu.fault({ kind: 'schema', method: 'POST', path: '/api/v3/sql', times: 1, body: { nope: 1 } });
    unreadable();
    const { job, warnings } = await explainJob(ctx, ran.id);
    expect(job).toMatchObject({ id: ran.id, state: 'COMPLETED', rule: null });
    expect(warnings).toEqual([
      expect.stringMatching(/^unexpected answer from POST .*sql.*; showing what the job's status tells$/),
    ]);
    expect(out.text).toBe('');
    unreadable();
    const why = await fx.run(['job', 'why', ran.id, '-o', 'json']);
    expect(why.code, why.stderr).toBe(0);
    expect(JSON.parse(why.stdout)).toEqual(job);
    expect(why.stderr).toBe(`warning: ${warnings[0]}\n`);
  });

  it.each([
    ['getEntity', (s: AbortSignal) => getEntity(ctx, parseRef('Sales'), {}, s)],
    ['getLineage', (s: AbortSignal) => getLineage(ctx, parseRef('Sales'), s)],
    ['searchCatalog', (s: AbortSignal) => searchCatalog(ctx, 'Sales', [], 10, s)],
    ['reflectionSummaryList', (s: AbortSignal) => reflectionSummaryList(ctx, {}, s)],
    [
      'explainAccess',
      (s: AbortSignal) => explainAccess(ctx, { kind: 'user', name: 'bob' }, parseRef('Sales'), s),
    ],
    ['explainJob', (s: AbortSignal) => explainJob(ctx, '2f067496-7cf0-a70e-0222-34d53a5dc800', s)],
  ])('%s, its signal aborted, ends interrupted and sends nothing', async (_name, op) => {
    await expect(op(aborted())).rejects.toBeInstanceOf(InterruptedError);
    expect(fx.emu.log.entries.filter((e) => !e.path.includes('/login'))).toEqual([]);
  });

  it.each([
    ['listJobs', (s: AbortSignal) => listJobs(ctx, jobFilter({ limit: 5 }, Date.now()), s)],
    ['runSql', (s: AbortSignal) => runSql(ctx, { sql: 'SELECT 1', maxRows: 10, maxBytes: 10_000 }, s)],
  ])('%s, its signal aborted, cancels the job it submitted', async (_name, op) => {
    const before = fx.emu.jobs.list().length;
    await expect(op(aborted())).rejects.toBeInstanceOf(InterruptedError);
    const submitted = fx.emu.jobs.list().slice(before);
    expect(submitted).toHaveLength(1);
    expect(fx.emu.log.entries.some((e) => e.path.endsWith(`/job/${submitted[0]!.id}/cancel`))).toBe(true);
  });
});
