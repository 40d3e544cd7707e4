// What only a process shows of an export over Arrow Flight: the built bundle exporting over Flight, a signal
// mid-stream (exit 130/143, no FILE and no FILE.partial left), and commands that do not export over Flight
// loading none of gRPC or Arrow.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDlake } from '../helpers/dlake.js';
import { useFixture } from '../helpers/fixture.js';
import { KEY, startPty } from '../helpers/pty.js';
import { until } from '../helpers/until.js';

let dir: string;

const fx = useFixture({ bigRows: 50_000, jobStepMs: 5, flightPort: 0 }, { login: false });
beforeAll(async () => {
  const login = await fx.run(
    ['--flight-url', fx.emu.flight!.url, 'login', '-u', 'admin', '--password-stdin'],
    {
      input: 'admin-pass-1\n',
    },
  );
  expect(login.code, login.stderr).toBe(0);
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dlake-flight-proc-'));
  fx.emu.flight!.clearFaults();
  fx.emu.flight!.calls.length = 0;
  return () => rmSync(dir, { recursive: true, force: true });
});

describe('the bundle over Flight', () => {
  it('exports over Flight from dist/ (gRPC and Arrow from dist/vendor)', async () => {
    const out = join(dir, 'rows.parquet');
    const r = await fx.spawn(['sql', 'SELECT * FROM big', '--out', out, '--transport', 'flight']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('wrote 50,000 rows');
    expect(readFileSync(out).subarray(0, 4).toString()).toBe('PAR1');
    expect(fx.emu.log.find('POST', '/api/v3/sql')).toHaveLength(0);
  });
});

describe('the SQL shell', () => {
  it('\\o FILE --transport flight runs the next statement over Flight, no REST job', async () => {
    fx.emu.log.clear();
    const out = join(dir, 'next.csv');
    const sh = startPty(['sql'], { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url });
    try {
      await sh.waitFor(/dlake>$/);
      sh.type(`\\o ${out} --transport flight${KEY.enter}`);
      await sh.waitFor(`The next result goes to ${out} (over Arrow Flight).`);
      sh.type(`SELECT id FROM big WHERE id <= 3 ORDER BY id;${KEY.enter}`);
      await sh.waitFor(/wrote 3 rows to .*next\.csv .*over Arrow Flight[\s\S]*dlake>$/);
      expect(readFileSync(out, 'utf8')).toBe('id\n1\n2\n3\n');
      expect(fx.emu.log.find('POST', '/api/v3/sql')).toHaveLength(0);
      sh.type(`\\q${KEY.enter}`);
      expect(await sh.exited).toBe(0);
    } finally {
      sh.kill();
    }
  });
});

describe('signals cancel the call and leave no file', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)(
    '%s mid-stream: exit %i, no FILE, no FILE.partial, the stream cancelled',
    async (signal, code) => {
      fx.emu.flight!.fault({ kind: 'slow', latencyMs: 200 });
      const out = join(dir, 'rows.csv');
      const child = startDlake(['sql', 'SELECT * FROM big', '--out', out, '--transport', 'flight'], {
        env: { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url },
      });
      // Once rows have been written, the stream is under way.
      await until(
        () => existsSync(`${out}.partial`) && readFileSync(`${out}.partial`).length > 0,
        'rows arrive',
      );
      child.kill(signal);
      const r = await child.done;
      expect(r.code, r.stderr).toBe(code);
      expect(r.stderr).toMatch(/: export stopped after [\d,]+ rows; .*rows\.csv was not written\n/);
      expect(readdirSync(dir)).toEqual([]);
      await until(
        () => fx.emu.flight!.calls.some((c) => c.method === 'DoGet' && c.code === 1),
        'the call is cancelled',
      );
    },
  );
});

describe('start-up: only a Flight export loads gRPC, protobufjs and Arrow', () => {
  it('a REST export and other commands require nothing of dist/vendor/{grpc,protobufjs,apache-arrow}; a Flight export does', async () => {
    const hook = join(dir, 'hook.cjs');
    const seen = join(dir, 'seen.txt');
    // Whatever way a file is loaded (require, or the bundle's code-cache loader), its source is read first.
    writeFileSync(
      hook,
      `const fs = require('node:fs'); const read = fs.readFileSync; const hits = new Set();
fs.readFileSync = function (file, ...rest) {
  if (/vendor[\\\\/](grpc|protobufjs|apache-arrow)/.test(String(file))) hits.add(require('node:path').basename(String(file)));
  return read.call(this, file, ...rest);
};
process.on('exit', () => fs.appendFileSync(${JSON.stringify(seen)}, [...hits].sort().join(',') + '\\n'));`,
    );
    const env = { DLAKE_CONFIG_DIR: fx.configDir, DLAKE_URL: fx.emu.url, NODE_OPTIONS: `--require ${hook}` };
    for (const args of [
      ['sql', 'SELECT 1 AS a', '--out', join(dir, 'rest.csv'), '--transport', 'rest'],
      ['catalog', 'ls'],
      ['whoami'],
      ['sql', 'SELECT 1 AS a', '--out', join(dir, 'flight.csv'), '--transport', 'flight'],
    ]) {
      const child = startDlake(args, { env });
      const r = await child.done;
      expect(r.code, r.stderr).toBe(0);
    }
    expect(readFileSync(seen, 'utf8').split('\n')).toEqual([
      '',
      '',
      '',
      'apache-arrow.cjs,grpc-grpc-js.cjs,protobufjs-minimal.cjs',
      '',
    ]);
  });
});
