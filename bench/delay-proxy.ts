// A TCP proxy that delays every chunk by a fixed one-way time in each direction, without limiting bandwidth: a
// network with that round trip (twice the delay) and a link faster than any reader, so that what bounds a Flight
// export is HTTP/2 flow control (docs/benchmarks.md "Flight export across a network: the HTTP/2 window"). Each
// chunk is written `delayMs` after it arrived; Node runs timers of one duration in the order they were set, so
// the order is kept. Nothing is held back for the receiver (no backpressure): in flight at once is what the
// sender may send unacknowledged, the flow-control window, as on a real link.
//
// The matrix (run from the repo, after `npm run build`; the replay server of bench/flight-replay/ behind one
// proxy per round trip):
//   npx tsx --conditions=dlake-source bench/delay-proxy.ts [--rtt 0,p0,2,20,80] [--windows 64K,1M,4M,16M]
//     [--rows 1M] [--runs 1] [--shapes flat,nested] [--formats csv,parquet] [--bare]
// RTT 0 is the replay server read directly, p0 through the proxy without delay; --bare: the bare reader of
// bench/flight-reader.ts instead of an export. Without --windows, the window is the one dlake ships
// (FLOW_CONTROL_WINDOW in src/export/flight/client.ts). dlake reads no setting for it, so to compare windows make
// that constant `Number(process.env.DLAKE_BENCH_WINDOW) || <the shipped one>` for the run (and `npm run build`):
// each --windows size is passed as DLAKE_BENCH_WINDOW, and the bench refuses --windows on a build without it.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEmulator } from 'dlake-emulator';
import { BIN } from '../test/helpers/dlake.js';
import { bareReader, parseRows, timed } from './flight.js';
import { startReplayServer } from './flight-replay/replay.js';
import { loggedIn } from './session.js';
import { median, table } from './stats.js';

export interface DelayProxy {
  /** `grpc://127.0.0.1:PORT`. */
  url: string;
  close(): Promise<void>;
}

/** Forwards 127.0.0.1:<a free port> to `host:port`, each chunk `delayMs` late in either direction. */
export async function startDelayProxy(host: string, port: number, delayMs: number): Promise<DelayProxy> {
  const sockets = new Set<Socket>();
  const forward = (from: Socket, to: Socket) => {
    from.on('data', (chunk) => {
      if (delayMs === 0) to.write(chunk);
      else setTimeout(() => to.destroyed || to.write(chunk), delayMs);
    });
    from.on('end', () => setTimeout(() => to.end(), delayMs));
    from.on('error', () => to.destroy());
    // A side that closed without ending (a reset) is passed on as one; an ended one was by `end`.
    from.on('close', () => from.readableEnded || setTimeout(() => to.destroy(), delayMs));
  };
  const server: Server = createServer((client) => {
    client.setNoDelay(true);
    const upstream = connect({ host, port, noDelay: true });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    url: `grpc://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((done) => {
        for (const s of sockets) s.destroy();
        server.close(() => done());
      }),
  };
}

const MiB = 2 ** 20;

function parseSize(s: string): number {
  const m = /^(\d+)([KM]?)$/i.exec(s);
  if (!m) throw new Error(`${s} is not a size (64K, 1M)`);
  return Number(m[1]) * (m[2]!.toUpperCase() === 'M' ? MiB : m[2] ? 1024 : 1);
}

const sizeLabel = (b: number) => (b >= MiB ? `${b / MiB} MiB` : `${Math.round(b / 1024)} KiB`);

async function matrix(argv: string[]): Promise<string> {
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  // `p0`: through the proxy with no delay, to check against 0 (direct) that the proxy is not the bottleneck.
  const rtts = (value('--rtt') ?? '0,2,20,80').split(',');
  const windowsArg = value('--windows');
  const windows: (number | undefined)[] = windowsArg?.split(',').map(parseSize) ?? [undefined];
  if (windowsArg) {
    const built = readFileSync(resolve(BIN, '../../dist/cli.cjs'), 'utf8');
    const source = readFileSync(resolve(import.meta.dirname, '../src/export/flight/client.ts'), 'utf8');
    if (!built.includes('DLAKE_BENCH_WINDOW') || !source.includes('DLAKE_BENCH_WINDOW'))
      throw new Error(
        '--windows: this build takes no DLAKE_BENCH_WINDOW (see the top of bench/delay-proxy.ts)',
      );
  }
  const rows = parseRows(value('--rows') ?? '1M')[0]!;
  const runs = Number(value('--runs') ?? 1);
  const bare = argv.includes('--bare');
  const shapes = (value('--shapes') ?? 'flat').split(',');
  const formats = (value('--formats') ?? 'csv').split(',');
  if (!existsSync('/usr/bin/time'))
    throw new Error('/usr/bin/time (GNU time) is needed for CPU and peak RSS');
  const replay = await startReplayServer();
  const emu = await startEmulator({ jobStepMs: 1 });
  const dir = mkdtempSync(join(tmpdir(), 'dlake-bench-window-'));
  const proxies: DelayProxy[] = [];
  const { hostname, port } = new URL(replay.url.replace(/^grpc:/, 'http:'));
  try {
    const reader = bare ? await bareReader(dir) : undefined;
    const out: string[][] = [];
    for (const rttArg of rtts) {
      const rtt = Number(rttArg.replace(/^p/, ''));
      let url = replay.url;
      if (rttArg !== '0') {
        const proxy = await startDelayProxy(hostname, Number(port), rtt / 2);
        proxies.push(proxy);
        url = proxy.url;
      }
      const conf = join(dir, `rtt-${rttArg}`);
      mkdirSync(conf);
      const env = await loggedIn(conf, emu.url, ['--flight-url', url]);
      for (const w of windows)
        for (const shape of shapes)
          for (const format of bare ? ['bare'] : formats) {
            const sql = `SELECT * FROM ${shape} LIMIT ${rows}`;
            const wenv = w === undefined ? env : { ...env, DLAKE_BENCH_WINDOW: String(w) };
            const got: { ms: number; cpuS: number; peakMiB: number; load: number }[] = [];
            for (let i = 0; i < runs; i++) {
              const load = loadavg()[0]!;
              if (reader) {
                const m = await timed([reader, url, 'Bearer replay', sql], wenv, join(dir, 'time'));
                const r = JSON.parse(m.out) as { rows: number };
                if (r.rows !== rows) throw new Error(`read ${r.rows} rows, not ${rows}`);
                got.push({ ...m, load });
              } else {
                const file = join(dir, `out.${format}`);
                const m = await timed(
                  [BIN, 'sql', sql, '--out', file, '--transport', 'flight', '-q'],
                  wenv,
                  join(dir, 'time'),
                );
                if (statSync(file).size === 0) throw new Error('an empty export');
                rmSync(file);
                got.push({ ...m, load });
              }
            }
            const ms = median(got.map((g) => g.ms));
            const row = [
              rttArg === '0' ? '0 (direct)' : rttArg === 'p0' ? '0 (proxy)' : `${rtt} ms`,
              w === undefined ? 'as built' : sizeLabel(w),
              `${shape} ${format}`,
              Math.round(rows / (ms / 1000)).toLocaleString('en-US'),
              median(got.map((g) => g.cpuS)).toFixed(1),
              Math.max(...got.map((g) => g.peakMiB)).toFixed(1),
              median(got.map((g) => g.load)).toFixed(1),
            ];
            out.push(row);
            process.stderr.write(`${row.join(' | ')}\n`);
          }
    }
    return [
      `${rows.toLocaleString('en-US')} rows (bare: the bare reader, else \`dlake sql … --out FILE --transport flight\`), ` +
        `${runs} run${runs > 1 ? 's' : ''} each (rows/s and CPU the median, peak RSS the largest); Node ${process.versions.node}`,
      table(['RTT', 'window', 'export', 'rows/s', 'CPU (s)', 'peak RSS (MiB)', 'load'], out),
    ].join('\n');
  } finally {
    for (const p of proxies) await p.close();
    await replay.close();
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.dirname, 'delay-proxy.ts'))
  console.log(await matrix(process.argv.slice(2)));
