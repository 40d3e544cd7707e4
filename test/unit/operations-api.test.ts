// The job history's SQL and row shapes, and the profile summary's reading of bytes (src/api/job-history.ts,
// src/api/profile.ts): quoting that no value escapes, both editions' dataset forms, strings with escaped quotes
// and backslashes, and a broken profile said as the service's fault.
import { describe, expect, it } from 'vitest';
import { JsonNumber } from '../../src/api/exact-json.js';
import { isJobId, jobListSql, jobRowSql, jobSummary } from '../../src/api/job-history.js';
import { summariseProfile } from '../../src/api/profile.js';
import { ServiceError } from '../../src/errors.js';

describe('job history SQL', () => {
  it('quotes every value: a quote, a LIKE wildcard and a backslash stay inside their literals', () => {
    const sql = jobListSql('sys.jobs_recent', {
      user: "x' OR '1'='1",
      text: "100%_\\'",
      queue: "q'",
      limit: 5,
    });
    expect(sql).toBe(
      "SELECT * FROM sys.jobs_recent WHERE query NOT LIKE '%/* dlake: job history */%' AND " +
        "user_name = 'x'' OR ''1''=''1' AND queue_name = 'q''' AND " +
        "LOWER(query) LIKE '%100\\%\\_\\\\''%' ESCAPE '\\' ORDER BY submitted_ts DESC LIMIT 5 /* dlake: job history */",
    );
  });

  it('puts only UUIDs into SQL as job ids', () => {
    expect(isJobId('2f067496-7cf0-a70e-0222-34d53a5dc800')).toBe(true);
    expect(isJobId("2f067496-7cf0-a70e-0222-34d53a5dc800' --")).toBe(false);
    expect(() => jobRowSql('sys.jobs', "1' OR 1=1")).toThrow();
  });
});

describe('a history row in one shape', () => {
  it('reads hosted nanosecond epochs exactly and quoted dataset names', () => {
    const j = jobSummary({
      job_id: 'a',
      status: 'COMPLETED',
      submitted_epoch: new JsonNumber('1673994628723999999'),
      final_state_epoch: new JsonNumber('1673994628825000000'),
      queried_datasets: [{ name: '"src"."my ""odd"" folder"."t.csv"', type: 'PHYSICAL_DATASET_SOURCE_FILE' }],
      accelerated: true,
    });
    expect(j).toMatchObject({
      submittedAt: '2023-01-17T22:30:28.723Z',
      durationMs: 102,
      datasets: ['src.my "odd" folder.t.csv'],
      accelerated: true,
    });
  });

  it('reads self-hosted strings: datasets listed, unset stages and empty texts as null', () => {
    const j = jobSummary({
      job_id: 'b',
      status: 'RUNNING',
      submitted_ts: '2024-04-25 08:24:18.006',
      final_state_ts: '1970-01-01 00:00:00.000',
      queried_datasets: '[Samples.samples.dremio.com.trips, sys.jobs]',
      error_msg: '',
      queue_name: '',
    });
    expect(j).toMatchObject({
      submittedAt: '2024-04-25T08:24:18.006Z',
      endedAt: null,
      durationMs: null,
      datasets: ['Samples.samples.dremio.com.trips', 'sys.jobs'],
      error: null,
      queue: null,
    });
  });
});

describe('the profile summary', () => {
  const profile = (query: string) =>
    Buffer.from(
      `{"query":${JSON.stringify(query)},"plan":"a \\\\\\" b","start":1,"end":11,"fragmentProfile":[{"majorFragmentId":2,` +
        '"minorFragmentProfile":[{"minorFragmentId":0,"operatorProfile":[{"operatorId":3,"operatorType":17,' +
        '"processNanos":2000000,"peakLocalMemoryAllocated":5,"inputProfile":[{"records":7}],' +
        '"metric":[{"metricId":0,"longValue":1}]}]}]}],' +
        '"operatorTypeMetricsMap":{"metricsDef":[{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},' +
        '{"metricDef":[{"id":0,"name":"SPILL_COUNT"}]}]}}',
    );

  it('reads strings with escaped quotes and backslashes, and names the spills', () => {
    const s = summariseProfile(profile('SELECT "a\\\\" FROM t WHERE x = \'\\"\''), 5);
    expect(s.query).toBe('SELECT "a\\\\" FROM t WHERE x = \'\\"\'');
    expect(s.totalMs).toBe(10);
    expect(s.operators).toEqual([
      { phase: '02', operator: '02-03', type: 'EXTERNAL_SORT', processMs: 2, records: 7, peakMemoryBytes: 5 },
    ]);
    expect(s.spills).toEqual([{ operator: '02-03', type: 'EXTERNAL_SORT', metric: 'SPILL_COUNT', value: 1 }]);
  });

  it('read as a stream: a piece at a time, cut anywhere, the same summary as read whole', () => {
    const whole = profile('SELECT "a\\\\" FROM t WHERE x = \'\\"\'');
    for (const size of [1, 2, 3, 7, 64]) {
      let at = 0;
      const pieces = {
        next: () => {
          if (at >= whole.length) return undefined;
          at += size;
          return whole.subarray(at - size, at);
        },
      };
      expect(summariseProfile(pieces, 5)).toEqual(summariseProfile(whole, 5));
    }
  });

  it('a profile cut short is the service answering something broken (exit 7)', () => {
    const whole = profile('SELECT 1');
    expect(() => summariseProfile(whole.subarray(0, whole.length - 40), 5)).toThrow(ServiceError);
  });
});
