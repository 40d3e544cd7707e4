// The job API layer against undici's MockAgent: waits end on every final state and poll through unknown ones,
// honour the timeout and back off; POST /api/v3/sql is never repeated; results pages keep to 500 rows.
import { beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/http.js';
import {
  cancelJob,
  getResults,
  parseResultsPage,
  requireCompleted,
  submitSql,
  waitForJob,
} from '../../src/api/jobs.js';
import { Pacer, paceLimits } from '../../src/api/pacing.js';
import { checkSummaryOrder, summaryFilter } from '../../src/api/reflection-filter.js';
import { reflectionSummaries } from '../../src/api/reflections.js';
import {
  type DlakeError,
  ExitCode,
  InterruptedError,
  JobFailedError,
  ServiceError,
  UsageError,
} from '../../src/errors.js';
import { mockClient, useMockAgent } from '../helpers/mock-agent.js';

const BASE = 'http://svc.test';
const ID = '2f067496-7cf0-a70e-0222-34d53a5dc800';
const json = { headers: { 'content-type': 'application/json' } };
/** A test that leaves an interceptor unused on purpose. */
let keepPending = false;

const mockAgent = useMockAgent({ allowPending: () => keepPending });

const client = (): ApiClient => mockClient(mockAgent(), BASE, 'Bearer t');

beforeEach(() => {
  keepPending = false;
});

const pool = () => mockAgent().get(BASE);
/** How often the one interceptor left pending was used (undici keeps the count, its types do not show it). */
const invocations = () =>
  (mockAgent().pendingInterceptors()[0] as unknown as { timesInvoked: number }).timesInvoked;
const status = (jobState: string, extra: Record<string, unknown> = {}) => ({
  jobState,
  errorMessage: '',
  cancellationReason: '',
  ...extra,
});
function states(...list: Array<string | Record<string, unknown>>): void {
  for (const s of list) {
    pool()
      .intercept({ path: `/api/v3/job/${ID}`, method: 'GET' })
      .reply(200, typeof s === 'string' ? status(s) : s, json);
  }
}

/** A fake clock: sleeping advances it, so timeouts are tested without waiting. */
function fakeTime() {
  let t = 0;
  const sleeps: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
    sleeps,
  };
}

async function failure(p: Promise<unknown>): Promise<DlakeError> {
  try {
    await p;
  } catch (e) {
    return e as DlakeError;
  }
  throw new Error('expected a failure');
}

describe('waitForJob', () => {
  for (const final of ['COMPLETED', 'FAILED', 'CANCELED', 'CANCELLED', 'INVALID_STATE']) {
    it(`ends on ${final}`, async () => {
      states('RUNNING', final);
      const time = fakeTime();
      const seen: string[] = [];
      const s = await waitForJob(client(), ID, { ...time, onPoll: (x) => seen.push(x.jobState) });
      expect(s.jobState).toBe(final);
      expect(seen).toEqual(['RUNNING', final]);
    });
  }

  const PATH = [
    'NOT_SUBMITTED',
    'PENDING',
    'METADATA_RETRIEVAL',
    'PLANNING',
    'QUEUED',
    'ENQUEUED',
    'ENGINE_START',
    'EXECUTION_PLANNING',
    'STARTING',
    'RUNNING',
    'CANCELLATION_REQUESTED',
    'SOME_FUTURE_STATE',
    'RUNNING',
  ];

  it('polls through every other state, known or not, backing off from 50 ms to 5 s', async () => {
    states(...PATH, 'COMPLETED');
    const time = fakeTime();
    const s = await waitForJob(client(), ID, time);
    expect(s.jobState).toBe('COMPLETED');
    expect(time.sleeps).toEqual([50, 75, 113, 170, 255, 383, 575, 863, 1295, 1943, 2915, 4373, 5000]);
    expect(time.sleeps).toHaveLength(PATH.length);
  });

  it('on the hosted edition, whose rate limits count status requests, backs off from 0.25 s to 5 s', async () => {
    states(...PATH, 'COMPLETED');
    const time = fakeTime();
    const paced = mockClient(mockAgent(), BASE, 'Bearer t', new Pacer(paceLimits({})));
    expect(paced.rateLimited).toBe(true);
    expect(client().rateLimited).toBe(false);
    const s = await waitForJob(paced, ID, time);
    expect(s.jobState).toBe('COMPLETED');
    expect(time.sleeps).toEqual([250, 375, 563, 845, 1268, 1902, 2853, 4280, 5000, 5000, 5000, 5000, 5000]);
  });

  it('gives up at the timeout: exit 7, naming the job, which is left running (no cancel sent)', async () => {
    const time = fakeTime();
    // 50 + 75 + 113 + 170 + 255 + 383 + 575 = 1621 ms, the next sleep cut to the 379 ms left: the ninth poll is
    // at the deadline.
    states(...Array<string>(9).fill('RUNNING'));
    const err = await failure(waitForJob(client(), ID, { ...time, timeoutMs: 2000 }));
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.exitCode).toBe(ExitCode.service);
    expect(err.message).toContain(ID);
    expect(err.message).toMatch(/after 2s: it is still RUNNING \(left running on the service\)/);
    expect(time.now()).toBe(2000);
    expect(time.sleeps.at(-1)).toBe(379);
  });

  it('a timeout shorter than the first delay still polls at the deadline', async () => {
    const time = fakeTime();
    states('QUEUED', 'COMPLETED');
    const s = await waitForJob(client(), ID, { ...time, timeoutMs: 30 });
    expect(s.jobState).toBe('COMPLETED');
    expect(time.sleeps).toEqual([30]);
  });

  it('Ctrl-C ends the wait with exit 130', async () => {
    states('RUNNING');
    const ac = new AbortController();
    const p = waitForJob(client(), ID, { signal: ac.signal, onPoll: () => setTimeout(() => ac.abort(), 5) });
    const err = await failure(p);
    expect(err).toBeInstanceOf(InterruptedError);
    expect(err.exitCode).toBe(130);
  });
});

describe('requireCompleted', () => {
  it('passes COMPLETED and turns every other final state into exit 6 with the reason', () => {
    expect(() => requireCompleted(status('COMPLETED'), ID)).not.toThrow();
    const failed = (() => {
      try {
        requireCompleted(status('FAILED', { errorMessage: 'Table nope not found\nLINE 1: SELECT' }), ID);
      } catch (e) {
        return e as DlakeError;
      }
    })()!;
    expect(failed).toBeInstanceOf(JobFailedError);
    expect(failed.exitCode).toBe(ExitCode.jobFailed);
    expect(failed.message).toBe(`job ${ID} failed: Table nope not found`);
    expect(failed.details).toEqual(['LINE 1: SELECT']);
    for (const s of ['CANCELED', 'CANCELLED']) {
      expect(() =>
        requireCompleted(status(s, { cancellationReason: "Query cancelled by user 'bob'" }), ID),
      ).toThrow(`job ${ID} was canceled: Query cancelled by user 'bob'`);
    }
    expect(() => requireCompleted(status('INVALID_STATE'), ID)).toThrow(JobFailedError);
  });
});

describe('submitSql', () => {
  it('posts the query and its context and returns the job id', async () => {
    pool()
      .intercept({
        path: '/api/v3/sql',
        method: 'POST',
        body: (b) => JSON.parse(b).sql === 'SELECT 1' && JSON.parse(b).context[1] === 'a b',
      })
      .reply(200, { id: ID }, json);
    expect(await submitSql(client(), 'SELECT 1', ['Sales', 'a b'])).toBe(ID);
  });

  it('is never repeated on 503 (a duplicate query is worse than an error)', async () => {
    pool()
      .intercept({ path: '/api/v3/sql', method: 'POST' })
      .reply(503, { errorMessage: 'busy' }, json)
      .times(2);
    const err = await failure(submitSql(client(), 'SELECT 1'));
    expect(err.exitCode).toBe(ExitCode.service);
    expect(err.message).toContain('busy');
    expect(invocations()).toBe(1);
    keepPending = true;
  });

  it('is never repeated after the connection dropped mid-answer', async () => {
    pool()
      .intercept({ path: '/api/v3/sql', method: 'POST' })
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))
      .times(2);
    const err = await failure(submitSql(client(), 'SELECT 1'));
    expect(err.exitCode).toBe(ExitCode.service);
    expect(invocations()).toBe(1);
    keepPending = true;
  });
});

describe('getResults', () => {
  it('refuses a page above 500 rows before any request', async () => {
    const err = await failure(getResults(client(), ID, 0, 501));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toContain('0 to 500 rows');
  });

  it('reads a page, keeping exact numbers', async () => {
    pool()
      .intercept({ path: `/api/v3/job/${ID}/results?offset=500&limit=500`, method: 'GET' })
      .reply(
        200,
        '{"rowCount":2,"schema":[{"name":"n","type":{"name":"BIGINT"}}],"rows":[{"n":9223372036854775807}]}',
        json,
      );
    const page = await getResults(client(), ID, 500, 500);
    expect(page.rowCount).toBe(2);
    expect(page.exact).toBe(true);
    expect(String(page.rows[0]!.n)).toBe('9223372036854775807');
  });

  it("explains the service's 400 for a job that is still running (exit 2)", async () => {
    pool()
      .intercept({ path: `/api/v3/job/${ID}/results?offset=0&limit=100`, method: 'GET' })
      .reply(
        400,
        {
          errorMessage: 'Can not fetch details for a job that is in [RUNNING] state.',
          moreInfo: 'Can not fetch details for a job that is in [RUNNING] state.',
        },
        json,
      );
    const err = await failure(getResults(client(), ID, 0, 100));
    expect(err.exitCode).toBe(ExitCode.usage);
    expect(err.message).toBe(
      `job ${ID} has no results yet: it is RUNNING, and results can be read only once it is COMPLETED`,
    );
    expect(err.hint).toEqual({ kind: 'job-not-ended', id: ID });
  });

  it('retries a page after a dropped connection (GET is safe to repeat)', async () => {
    const path = `/api/v3/job/${ID}/results?offset=0&limit=10`;
    pool()
      .intercept({ path, method: 'GET' })
      .replyWithError(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    pool()
      .intercept({ path, method: 'GET' })
      .reply(
        200,
        { rowCount: 1, schema: [{ name: 'a', type: { name: 'INTEGER' } }], rows: [{ a: 1 }] },
        json,
      );
    expect((await getResults(client(), ID, 0, 10)).rows).toEqual([{ a: 1 }]);
  });

  it('reports a page that breaks the schema by field (exit 7)', () => {
    expect(() => parseResultsPage('{"rowCount":"x","schema":[],"rows":[]}', 'GET /r')).toThrow(
      'unexpected answer from GET /r: rowCount: expected a number',
    );
    expect(() => parseResultsPage('{"rowCount":1,"schema":[{"name":1}],"rows":[]}', 'GET /r')).toThrow(
      /schema\.0\.name/,
    );
    expect(() => parseResultsPage('{"rowCount":1,"schema":[],"rows":[1]}', 'GET /r')).toThrow(
      'rows.0: expected an object',
    );
    expect(() => parseResultsPage('{"rowCount": 10, "rows": [{"a": 1},', 'GET /r')).toThrow(ServiceError);
  });
});

describe('cancelJob', () => {
  it('asks for cancellation (204)', async () => {
    pool()
      .intercept({ path: `/api/v3/job/${ID}/cancel`, method: 'POST' })
      .reply(204, '');
    expect(await cancelJob(client(), ID)).toEqual({ requested: true });
  });

  it('tells a job that already ended (the service answers 404) from an unknown one', async () => {
    const notFound = { errorMessage: `Could not find a job with id [${ID}]`, moreInfo: '' };
    pool()
      .intercept({ path: `/api/v3/job/${ID}/cancel`, method: 'POST' })
      .reply(404, notFound, json);
    states('COMPLETED');
    expect(await cancelJob(client(), ID)).toMatchObject({
      requested: false,
      status: { jobState: 'COMPLETED' },
    });

    pool()
      .intercept({ path: `/api/v3/job/${ID}/cancel`, method: 'POST' })
      .reply(404, notFound, json);
    pool()
      .intercept({ path: `/api/v3/job/${ID}`, method: 'GET' })
      .reply(404, notFound, json);
    expect((await failure(cancelJob(client(), ID))).exitCode).toBe(ExitCode.notFound);
  });
});

describe('reflection summary', () => {
  it('sends filter and order with the first page only, then follows the page token', async () => {
    const filter = { reflectionType: ['RAW'], enabledFlag: true };
    const first = new URLSearchParams({
      maxResults: '100',
      filter: JSON.stringify(filter),
      orderBy: '-reflectionName',
    });
    pool()
      .intercept({ path: `/api/v3/reflection-summary?${first}`, method: 'GET' })
      .reply(200, { data: [{ id: 'a' }, { id: 'b' }], nextPageToken: 'p2', canAlterReflections: true }, json);
    pool()
      .intercept({ path: '/api/v3/reflection-summary?maxResults=100&pageToken=p2', method: 'GET' })
      .reply(200, { data: [{ id: 'c' }] }, json);
    const ids: string[] = [];
    for await (const s of reflectionSummaries(client(), { filter, orderBy: '-reflectionName' }))
      ids.push(s.id);
    expect(ids).toEqual(['a', 'b', 'c']);
  });

  it('stops at --limit, asking for no more than it needs', async () => {
    pool()
      .intercept({ path: '/api/v3/reflection-summary?maxResults=2', method: 'GET' })
      .reply(200, { data: [{ id: 'a' }, { id: 'b' }], nextPageToken: 'p2' }, json);
    const ids: string[] = [];
    for await (const s of reflectionSummaries(client(), { limit: 2 })) ids.push(s.id);
    expect(ids).toEqual(['a', 'b']);
  });

  it('builds the filter from key=value pairs or JSON, and checks the order field', () => {
    expect(
      summaryFilter(
        ['reflectionType=RAW,AGGREGATION', 'enabledFlag=false', 'reflectionNameOrDatasetPath=a=b'],
        '--filter',
      ),
    ).toEqual({
      reflectionType: ['RAW', 'AGGREGATION'],
      enabledFlag: false,
      reflectionNameOrDatasetPath: 'a=b',
    });
    expect(summaryFilter(['{"configStatus":["INVALID"]}'], '--filter')).toEqual({
      configStatus: ['INVALID'],
    });
    expect(summaryFilter([], '--filter')).toBeUndefined();
    expect(() => summaryFilter(['colour=red'], '--filter')).toThrow('unknown --filter attribute "colour"');
    expect(() => summaryFilter(['{"a":'], '--filter')).toThrow(UsageError);
    // Closed-set values are checked (a typo would match nothing) and spelled as the service does.
    expect(() => summaryFilter(['reflectionType=RAWW'], '--filter')).toThrow(
      '--filter reflectionType "RAWW" is not one of: RAW, AGGREGATION',
    );
    expect(() => summaryFilter(['{"availabilityStatus":["GONE"]}'], '--filter')).toThrow(
      /availabilityStatus "GONE"/,
    );
    expect(summaryFilter(['refreshStatus=given_up'], '--filter')).toEqual({ refreshStatus: ['GIVEN_UP'] });
    expect(checkSummaryOrder('-datasetName')).toBe('-datasetName');
    expect(() => checkSummaryOrder('size')).toThrow(UsageError);
  });
});
