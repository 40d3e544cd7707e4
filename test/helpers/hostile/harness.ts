// The contract's invariants as properties (docs/cli-contract.md "Output bounds", "Files dlake reads and
// writes", "Errors", "Exit codes"), checked for a command line against the hostile server (./server.ts): one
// emulator behind one proxy, a logged-in config folder copied for each case, each case run in-process. Used by
// test/e2e/invariants.test.ts (a bounded number of cases in `npm test`) and scripts/hostile-run.ts (the long run).
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { type Emulator, startEmulator } from 'dlake-emulator';
import fc from 'fast-check';
import { exitCodes } from '../../../src/errors.js';
import type { RunResult } from '../dlake.js';
import { runInProcess } from '../in-process.js';
import { type Case, caseArbitrary, type Places } from './commands.js';
import { describeMutation, type Mutation, mutationArbitrary } from './mutations.js';
import { type HostileServer, startHostileServer } from './server.js';

const SAMPLES = resolve(import.meta.dirname, '../../fixtures/samples');
const PASSWORD = 'admin-pass-1';
/** A case that takes longer has hung: --timeout is 2 s, a few attempts each, and Retry-After is never waited long. */
const CASE_LIMIT_MS = 60_000;
/** Memory a case may add to the process at its peak (resident set), far below what an unbounded read takes. */
const CASE_MEMORY_BYTES = 1536 * 1024 * 1024;

const EXIT_CODES = new Set(exitCodes().map((c) => c.code));

/** What the server sends that must never reach a terminal as it is. */
const TERMINAL_HOSTILE: [RegExp, string][] = [
  [/\u001b\]0;PWNED/, 'a window-title sequence'],
  [/\u001b\[2J/, 'a clear-screen sequence'],
  [/\u009b/, 'a C1 control sequence introducer'],
  [/[\u202a-\u202e\u2066-\u2069]/, 'a bidirectional control'],
  [/\u0007/, 'a bell'],
];
/** A stack frame of dlake's own (a JavaScript one; the service's Java ones are its text). */
const STACK_FRAME = /^\s+at .*(?:\.[cm]?[jt]s:\d+:\d+\)?|node:[\w/]+:\d+)/m;

export interface Outcome {
  result: RunResult;
  violations: string[];
  ms: number;
}

export class Harness {
  private constructor(
    readonly emu: Emulator,
    readonly server: HostileServer,
    private readonly root: string,
    private readonly templateConfig: string,
    readonly places: Places,
    readonly secrets: string[],
  ) {}

  static async start(): Promise<Harness> {
    const emu = await startEmulator({ samplesDir: SAMPLES, bigRows: 1200, jobStepMs: 1 });
    const server = await startHostileServer(emu.url);
    const root = mkdtempSync(join(tmpdir(), 'dlake-hostile-'));
    const templateConfig = join(root, 'config-template');
    mkdirSync(templateConfig);
    const env = { DLAKE_CONFIG_DIR: templateConfig, DLAKE_URL: server.url };
    const must = async (args: string[], input?: string): Promise<string> => {
      const r = await runInProcess(args, { env, input });
      if (r.code !== 0) throw new Error(`setup: dlake ${args.join(' ')} failed: ${r.stderr}`);
      return r.stdout.trim();
    };
    await must(['login', '-u', 'admin', '--password-stdin'], `${PASSWORD}\n`);
    const secrets = [PASSWORD, ...secretsIn(templateConfig)];
    server.secrets = secretsIn(templateConfig);
    const bigJob = await must(['sql', 'SELECT * FROM big', '--no-wait']);
    const smallJob = await must(['sql', 'SELECT 1 AS x', '--no-wait']);
    await must(['job', 'wait', bigJob]);
    await must(['job', 'wait', smallJob]);
    const defsTemplate = join(root, 'defs-template');
    await must(['pull', 'Samples', '--dir', defsTemplate]);
    mkdirSync(join(root, 'nas'));
    const entityFile = join(root, 'space.json');
    writeFileSync(entityFile, JSON.stringify({ entityType: 'space', name: 'Lab' }));
    const places: Places = {
      bigJob,
      smallJob,
      out: join(root, 'case', 'out'),
      defs: join(root, 'case', 'out', 'defs'),
      plan: join(root, 'case', 'out', 'saved-plan.json'),
      entityFile,
      nasDir: join(root, 'nas'),
      password: PASSWORD,
    };
    const h = new Harness(emu, server, root, templateConfig, places, secrets);
    // The saved plan, made once against the unchanged server (the defs changed so that it has a change).
    h.prepareCase();
    await must(['plan', '--dir', places.defs, '--out', join(root, 'saved-plan.json')]);
    return h;
  }

  /** Logs the template in again (unchanged answers), and knows its new token as a secret in force. */
  private async login(): Promise<void> {
    this.server.reset(undefined);
    const env = { DLAKE_CONFIG_DIR: this.templateConfig, DLAKE_URL: this.server.url };
    const r = await runInProcess(['login', '-u', 'admin', '--password-stdin'], {
      env,
      input: `${PASSWORD}\n`,
    });
    if (r.code !== 0) throw new Error(`could not log in again: ${r.stderr}`);
    const secrets = secretsIn(this.templateConfig);
    this.secrets.splice(0, this.secrets.length, ...new Set([...this.secrets, ...secrets]));
    this.server.secrets = secrets;
  }

  /** Commands and their lines as a fast-check arbitrary, with the mutations. */
  async arbitrary(opts: {
    slow: boolean;
  }): Promise<{ arbitrary: fc.Arbitrary<[Case, Mutation]>; commands: number }> {
    const { arbitrary, commands } = await caseArbitrary(this.places);
    return { arbitrary: fc.tuple(arbitrary, mutationArbitrary(opts)), commands };
  }

  /** A fresh case folder: the logged-in config, the definitions and saved plan, an empty place to write. */
  private prepareCase(): { config: string; caseDir: string } {
    const caseDir = join(this.root, 'case');
    rmSync(caseDir, { recursive: true, force: true });
    const config = join(caseDir, 'config');
    cpSync(this.templateConfig, config, { recursive: true });
    mkdirSync(this.places.out, { recursive: true });
    cpSync(join(this.root, 'defs-template'), this.places.defs, { recursive: true });
    try {
      cpSync(join(this.root, 'saved-plan.json'), this.places.plan);
    } catch {
      // Not yet made (the setup's own plan run).
    }
    return { config, caseDir };
  }

  /** Runs one case and checks every invariant; returns what broke them (none: the case holds). */
  async run(c: Case, m: Mutation | undefined): Promise<Outcome> {
    const { config, caseDir } = this.prepareCase();
    this.server.reset(m);
    // HOME too: a command that writes into the home folder (an agent host's file) writes into the case's own.
    const env = {
      DLAKE_CONFIG_DIR: config,
      DLAKE_URL: this.server.url,
      DLAKE_TIMEOUT: '2s',
      COLUMNS: '80',
      HOME: join(caseDir, 'home'),
    };
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<'hung'>((r) => {
      timer = setTimeout(() => r('hung'), CASE_LIMIT_MS);
    });
    const run = runInProcess(c.args, { env, input: c.input, tty: c.tty });
    const result = await Promise.race([run, hung]);
    clearTimeout(timer);
    clearInterval(sampler);
    const ms = performance.now() - started;
    if (result === 'hung') {
      return {
        result: { code: null, signal: null, stdout: '', stderr: '' },
        violations: [`did not end within ${CASE_LIMIT_MS / 1000} s`],
        ms,
      };
    }
    const violations = this.check(result, c, caseDir, config, peak - before);
    // A case that logged out (or in again) ended the template's session on the service: a new one for the next.
    if (this.server.exchanges.some((e) => !e.mutated && e.sent.startsWith('401'))) await this.login();
    return { result, violations, ms };
  }

  private check(r: RunResult, c: Case, caseDir: string, config: string, memory: number): string[] {
    const v: string[] = [];
    if (r.code === null || !EXIT_CODES.has(r.code))
      v.push(`exit code ${r.code} is not one the contract documents`);
    // The lines as a terminal shows them: a spinner's row is erased (ESC [2K) before the line that follows it.
    // (Cut at the last erase of each line, not by a regex: /[^\n]*\u001b\[2K/ backtracks over a long line from
    // every position of it, hours for a line of megabytes.)
    const lines = r.stderr.split('\n').map((l) => {
      const erased = l.lastIndexOf('\u001b[2K');
      return (erased < 0 ? l : l.slice(erased + 4)).replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    });
    const errors = lines.filter((l) => /^error:/.test(l));
    // Success, `plan --exit-code` (8) and doctor's "a check fails" (10: its findings are the answer) print
    // none; every other failure exactly one.
    const expected = r.code === 0 || r.code === 8 || (r.code === 10 && c.args[0] === 'doctor') ? 0 : 1;
    if (errors.length !== expected && !(r.code === 0 && c.args[0] === 'mcp')) {
      v.push(
        `${errors.length} \`error:\` lines where ${expected} belong: ${JSON.stringify(errors.slice(0, 3))}`,
      );
    }
    if (errors.some((e) => /^error: forged/.test(e))) v.push('an `error:` line forged by the server');
    if (lines.some((l) => /^hint: run `(rm|curl)/.test(l))) v.push('a `hint:` line forged by the server');
    if (STACK_FRAME.test(r.stderr) || STACK_FRAME.test(r.stdout)) v.push('a stack trace');
    if (r.code === 1) v.push(`exit 1 (a bug in dlake): ${errors[0] ?? ''}`);
    const files = filesUnder(caseDir).filter((f) => !f.startsWith('config/'));
    let caseSecrets: string[] = [];
    try {
      caseSecrets = secretsIn(config);
    } catch {
      // Logged out: no stored secret.
    }
    const secrets = new Set([...this.secrets, ...caseSecrets]);
    for (const [where, text] of [
      ['stdout', r.stdout],
      ['stderr', r.stderr],
      ...files.map((f) => [f, readText(join(caseDir, f))] as const),
    ] as const) {
      for (const s of secrets) if (text.includes(s)) v.push(`the secret ${s.slice(0, 4)}… in ${where}`);
    }
    const terminal: [string, string][] = [['stderr', r.stderr]];
    if (c.tty) terminal.push(['stdout (a terminal)', r.stdout]);
    for (const [where, text] of terminal) {
      for (const [re, what] of TERMINAL_HOSTILE)
        if (re.test(text)) v.push(`${what} from the server on ${where}`);
    }
    for (const f of files) {
      if (!f.startsWith('out/')) v.push(`a file written outside the folders given: ${f}`);
    }
    // Text is UTF-8: a service's invalid bytes are replaced, never copied raw into JSON, NDJSON or CSV.
    if (r.stdoutInvalidUtf8) v.push('bytes on stdout that are not valid UTF-8');
    for (const f of files.filter((x) => /\.(json|ndjson|csv)$/.test(x))) {
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(join(caseDir, f)));
      } catch {
        v.push(`${f} is not valid UTF-8`);
      }
    }
    for (const f of filesUnder(config)) {
      if (
        !/^(config\.json|credentials\.json|config\.json\.lock|credentials\.json\.lock|sql_history|[\w.-]*cache[\w./-]*)$/.test(
          f,
        )
      ) {
        v.push(`an unexpected file in the config folder: ${f}`);
      }
    }
    if (memory > CASE_MEMORY_BYTES) v.push(`${Math.round(memory / 1024 / 1024)} MiB more memory at its peak`);
    return v;
  }

  /** A failure as the report prints it: the command, the rule, the answers that the server sent, the output. */
  report(c: Case, m: Mutation | undefined, o: Outcome): string {
    const cut = (s: string) => (s.length > 3000 ? `${s.slice(0, 3000)}… (${s.length} characters)` : s);
    return [
      `dlake ${c.args.map((x) => JSON.stringify(x)).join(' ')}${c.tty ? '   (on a terminal)' : ''}`,
      `rule: ${m ? describeMutation(m) : 'none'}`,
      `broke: ${o.violations.join('; ')}`,
      '--- what the server sent:',
      ...this.server.exchanges.map(
        (e, i) => `  #${i} ${e.method} ${e.path} → ${e.mutated ? '(mutated) ' : ''}${e.sent}`,
      ),
      `--- exit ${o.result.code}`,
      `--- stdout:\n${cut(JSON.stringify(o.result.stdout))}`,
      `--- stderr:\n${cut(JSON.stringify(o.result.stderr))}`,
    ].join('\n');
  }

  async close(): Promise<void> {
    await this.server.close();
    await this.emu.close();
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** The secrets stored in a logged-in config folder: its tokens. */
function secretsIn(config: string): string[] {
  const stored = JSON.parse(readFileSync(join(config, 'credentials.json'), 'utf8'));
  return collectStrings(stored).filter((s) => s.length >= 16);
}

/** The values of secret-named fields (tokens, refresh tokens, PATs) anywhere in a stored file. */
function collectStrings(v: unknown, key = ''): string[] {
  if (typeof v === 'string') return /token|secret|pat$|password/i.test(key) ? [v] : [];
  if (Array.isArray(v)) return v.flatMap((x) => collectStrings(x, key));
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => collectStrings(x, k));
  return [];
}

/** Every file under `dir`, relative to it, `/`-separated. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p).split('\\').join('/'));
    }
  };
  walk(dir);
  return out;
}

/** A file's text, its first 64 MiB (a secret would be in what dlake writes, not beyond what it may write). */
function readText(path: string): string {
  try {
    return readFileSync(path)
      .subarray(0, 64 * 1024 * 1024)
      .toString('latin1');
  } catch {
    return '';
  }
}
