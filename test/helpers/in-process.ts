// Runs dlake's command tree in this process, with captured streams: for behaviour that needs no child
// process (help, usage errors, input checks before any request).
import { PassThrough } from 'node:stream';
import { runCli } from '../../src/runtime.js';

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runInProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<InProcessResult> {
  const capture = () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    return { stream: stream as unknown as NodeJS.WriteStream, text: () => text };
  };
  const stdout = capture();
  const stderr = capture();
  const stdin = new PassThrough() as unknown as NodeJS.ReadStream;
  const code = await runCli(['node', 'dlake', ...args], {
    env: { DLAKE_CONFIG_DIR: '/nonexistent-dlake-test', ...env },
    streams: { stdin, stdout: stdout.stream, stderr: stderr.stream },
  });
  await new Promise((r) => setImmediate(r));
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
