// The replay Flight server and the bare reader of bench/flight-replay/ (their Python files say what each does),
// run from the Python environment the tests make (test/helpers/real-readers.ts testPython).
import { execFile, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { testPython } from '../../test/helpers/real-readers.js';

const HERE = import.meta.dirname;

export interface ReplayServer {
  /** `grpc://127.0.0.1:PORT`. */
  url: string;
  pid: number;
  close(): Promise<void>;
}

/** Starts the replay server (python server.py) on a free port; resolves once it listens. */
export async function startReplayServer(): Promise<ReplayServer> {
  const python = await testPython();
  const child = spawn(python, [resolve(HERE, 'server.py')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const port = await new Promise<number>((ready, fail) => {
    child.once('exit', (code) => fail(new Error(`the replay server exited (${code}) before listening`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^ready (\d+)$/.exec(line);
      if (m) ready(Number(m[1]));
    });
  });
  return {
    url: `grpc://127.0.0.1:${port}`,
    pid: child.pid!,
    async close() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** One bare read of `sql` (python bare-reader.py): its loop's milliseconds and the rows it read. */
export async function bareRead(url: string, sql: string): Promise<{ ms: number; rows: number }> {
  const python = await testPython();
  const { stdout } = await promisify(execFile)(python, [resolve(HERE, 'bare-reader.py'), url, sql]);
  return JSON.parse(stdout) as { ms: number; rows: number };
}
