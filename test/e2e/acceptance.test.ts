// Acceptance cases as files (test/acceptance/README.md): each folder holds a `script` of dlake commands run in
// order against a fresh emulator, and beside it the whole of what they gave — `output.txt` (each command, its
// stdout, its stderr and its exit code) and `out.requests.txt` (every request the emulator answered) — compared
// byte for byte after the run's ids and times are replaced by stable names. DLAKE_ACCEPTANCE_UPDATE=1 writes the
// files anew instead, to be reviewed as a diff.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import type { EmulatorOptions } from 'dlake-emulator';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../helpers/dlake.js';
import { plainWords } from '../helpers/examples.js';
import { startFixture } from '../helpers/fixture.js';
import type { InProcessOptions } from '../helpers/in-process.js';

const ROOT = resolve(import.meta.dirname, '../acceptance');
const UPDATE = process.env.DLAKE_ACCEPTANCE_UPDATE === '1';

/** Every folder below ROOT that holds a `script`. */
function cases(dir = ROOT): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const sub = join(dir, entry.name);
    if (existsSync(join(sub, 'script'))) found.push(sub);
    found.push(...cases(sub));
  }
  return found.sort();
}

/** A script line's words, as a shell splits a line that needs no shell (test/helpers/examples.ts). */
function words(line: string): string[] {
  const split = plainWords(line);
  if (!split) throw new Error(`an acceptance script's line is one plain command, no shell syntax: ${line}`);
  return split;
}

/**
 * The run's own values made stable: each token the emulator issued `<token-1>`, `<token-2>`… in the order it
 * issued them; the config folder `<config>`; the case's own folder `$TMP`; the folder the tests run in `<cwd>`;
 * each UUID, in order of first appearance, `<id-1>`, `<id-2>`…; the emulator's address `<url>`;
 * version tags `<tag>`; times and durations `<time>` and `<duration>`; the padding between a table's columns two
 * spaces.
 */
function stable(url: string, folders: { config: string; tmp: string }, tokens: Iterable<string>) {
  const ids = new Map<string, string>();
  return (text: string): string =>
    [...tokens]
      .reduce((t, token, i) => t.replaceAll(token, `<token-${i + 1}>`), text)
      .replaceAll(folders.config, '<config>')
      .replaceAll(folders.tmp, '$TMP')
      .replaceAll(process.cwd(), '<cwd>')
      .replaceAll(url, '<url>')
      .replaceAll(url.replace(/^http:\/\//, ''), '<host>')
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, (id) => {
        const key = id.toLowerCase();
        if (!ids.has(key)) ids.set(key, `<id-${ids.size + 1}>`);
        return ids.get(key)!;
      })
      // Version tags (8 bytes in base64), URL-encoded in a query too, and not `maxChildren=500`.
      .replace(/(?<=[?&](tag|version)=)[^&\s]+/g, '<tag>')
      .replace(/(?<![\w+/])[\w+/]{11}(=|%3D)(?![\w%])/g, '<tag>')
      // Times of the run (within days of it, or an expiry up to a year after it): the fixed ones of help texts
      // and examples stay.
      .replace(/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?Z?\b/g, (t) => {
        const since = Date.parse(`${t.replace(' ', 'T').replace(/Z?$/, 'Z')}`) - Date.now();
        return since > -3 * 86_400_000 && since < 366 * 86_400_000 ? '<time>' : t;
      })
      .replace(/\b\d+[dhm] \d+[hms]\b|\b\d+(\.\d+)?\s?(ms|s)\b/g, '<duration>')
      // A table's columns are as wide as the values before they were made stable: two spaces between them.
      .replace(/(?<=\S) {2,}/g, '  ');
}

/**
 * What a case's `emulator.json` asks of its emulator (default: a self-hosted one, logged in as its admin);
 * `hosted`: the hosted edition's project, the commands run with a PAT in DLAKE_TOKEN.
 */
function emulatorOptions(dir: string): EmulatorOptions & { hosted?: string } {
  const file = join(dir, 'emulator.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
}

/**
 * A JSON-RPC dialogue with a command that serves one on standard input and output (`dlake mcp`): each message is
 * sent once every request before it has its answer, so the answers and the requests they make come in one order,
 * and standard input is closed only then (the server cancels what is still running when its input ends). The
 * transcript: each message sent as `> MESSAGE`, then each line the command wrote after it, a JSON one indented.
 */
async function dialogue(
  messages: string[],
  run: (opts: InProcessOptions) => Promise<RunResult>,
): Promise<{ r: RunResult; transcript: string[] }> {
  const stdin = new PassThrough();
  const answered = new Set<unknown>();
  let waiting: { id: unknown; resolve: () => void } | undefined;
  /** How much the command wrote so far, and the line it has not ended yet. */
  let written = 0;
  let partial = '';
  const onStdout = (text: string) => {
    written += text.length;
    const lines = (partial + text).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      try {
        const message = JSON.parse(line);
        if (message.method === undefined) answered.add(message.id);
      } catch {}
    }
    if (waiting && answered.has(waiting.id)) waiting.resolve();
  };
  const running = run({ stdin, onStdout });
  const ended = running.then(() => false);
  // Where the command's output stood when each message was sent.
  const marks: number[] = [];
  for (const message of messages) {
    const { id } = JSON.parse(message) as { id?: unknown };
    marks.push(written);
    stdin.write(`${message}\n`);
    if (id === undefined) continue;
    const answer = new Promise<boolean>((resolve) => {
      waiting = { id, resolve: () => resolve(true) };
      if (answered.has(id)) resolve(true);
    });
    // A command that ends before it answers leaves the rest unsent: the transcript shows where it stopped.
    if (!(await Promise.race([answer, ended]))) break;
  }
  stdin.end();
  const r = await running;
  const transcript = marks.flatMap((mark, k) => [
    `> ${messages[k]}`,
    ...r.stdout
      .slice(mark, marks[k + 1] ?? r.stdout.length)
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        try {
          return JSON.stringify(JSON.parse(line), null, 2);
        } catch {
          return line;
        }
      }),
  ]);
  return { r, transcript };
}

async function runCase(dir: string): Promise<{ output: string; requests: string }> {
  const { hosted, ...options } = emulatorOptions(dir);
  const fx = await startFixture(
    hosted ? { ...options, edition: 'cloud', cloud: { projectId: hosted } } : options,
  );
  // A folder of the case's own, for the files its commands write (`$TMP` in the script).
  const tmp = mkdtempSync(join(tmpdir(), 'dlake-acceptance-'));
  // The 0600 file, said nowhere: whether this machine has a credential store is not the case's output. A home
  // folder of the case's own: what a command finds or writes there (agent hosts) is never the machine's user's.
  const home = join(tmp, 'home');
  mkdirSync(home);
  let env: Record<string, string> = {
    COLUMNS: '120',
    DLAKE_CREDENTIAL_STORE: 'file',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    CODEX_HOME: join(home, '.codex'),
    COPILOT_HOME: join(home, '.copilot'),
  };
  try {
    if (hosted) {
      env = { ...env, DLAKE_EDITION: 'cloud', DLAKE_PROJECT_ID: hosted, DLAKE_TOKEN: fx.pat() };
    } else expect((await fx.login()).code).toBe(0);
    fx.emu.log.clear();
    // Every token the emulator issued during the case, kept as it issues them (a revoked one leaves its map).
    const tokens = new Set<string>();
    const say = stable(fx.emu.url, { config: fx.configDir, tmp }, tokens);
    const output: string[] = [];
    const lines = readFileSync(join(dir, 'script'), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.trim() === '' || line.startsWith('#')) continue;
      // `$URL` is the emulator's address; `<<< TEXT` ends a line whose command reads TEXT on stdin, `<<WORD` one
      // whose command holds a JSON-RPC dialogue (the messages on the lines up to WORD).
      const filled = (text: string) => text.replaceAll('$URL', fx.emu.url).replaceAll('$TMP', tmp);
      const heredoc = / <<(\w+)$/.exec(line);
      const [command, input] = heredoc
        ? [line.slice(0, heredoc.index)]
        : (filled(line).split(/ <<< /, 2) as [string, string?]);
      const [dlake, ...args] = words(filled(command));
      if (dlake !== 'dlake')
        throw new Error(`${relative(ROOT, dir)}/script: a line is a dlake command: ${line}`);
      let r: RunResult;
      let transcript: string[] | undefined;
      if (heredoc) {
        const end = lines.indexOf(heredoc[1]!, i + 1);
        if (end < 0) throw new Error(`${relative(ROOT, dir)}/script: no line ${heredoc[1]} ends: ${line}`);
        const messages = lines.slice(i + 1, end).filter((l) => l.trim() !== '' && !l.startsWith('#'));
        i = end;
        ({ r, transcript } = await dialogue(messages.map(filled), (opts) => fx.run(args, { env, ...opts })));
      } else r = await fx.run(args, { env, input: input === undefined ? undefined : `${words(input)[0]}\n` });
      for (const token of fx.emu.state.tokens.keys()) tokens.add(token);
      output.push(
        `$ ${line}`,
        ...(transcript ?? (r.stdout ? [r.stdout.trimEnd()] : [])),
        ...(r.stderr ? ['--- stderr', r.stderr.trimEnd()] : []),
        `--- exit ${r.code}`,
        '',
      );
    }
    const requests = fx.emu.log.entries.map((e) => {
      const query = Object.entries(e.query)
        .map(([k, v]) => `${k}=${v}`)
        .sort()
        .join('&');
      return `${e.method} ${e.path}${query ? `?${query}` : ''} ${e.status}`;
    });
    // A wait polls a job as often as the job's pace allows: the same GET again and again is one line.
    const once = requests.filter((line, i) => !(line.startsWith('GET ') && line === requests[i - 1]));
    return { output: say(output.join('\n')), requests: say(`${once.join('\n')}\n`) };
  } finally {
    await fx.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

describe('acceptance cases (test/acceptance)', () => {
  it.each(cases().map((dir) => [relative(ROOT, dir), dir]))('%s', async (_name, dir) => {
    const got = await runCase(dir);
    const files = { output: join(dir, 'output.txt'), requests: join(dir, 'out.requests.txt') };
    if (UPDATE) {
      writeFileSync(files.output, got.output);
      writeFileSync(files.requests, got.requests);
      return;
    }
    expect(got.output, `${files.output} (DLAKE_ACCEPTANCE_UPDATE=1 writes it anew)`).toBe(
      readFileSync(files.output, 'utf8'),
    );
    expect(got.requests, files.requests).toBe(readFileSync(files.requests, 'utf8'));
  });
});
