// Every example a user reads, run as printed against a fresh emulator: the Examples of `dlake --help` and of every
// command's help, and the dlake lines of README.md and docs/guide.md. Each text's examples run in its own order
// in one fixture (an emulator, a config folder, a scratch folder as the working directory), so an example may use
// what an earlier one made, as a reader following the text does. A line that needs no shell runs in-process, and so
// does one whose only shell is an `echo` of plain words piped into dlake or dlake's standard input from a file or
// its output to one (`< pat.txt`, `> rules.json`), with that input and output; one with any other pipe or
// redirection, a variable or a substitution runs in bash, with the built dlake first on the PATH.
// Each must exit with the code its text promises (0 unless the text says otherwise, EXIT below) and print no
// `error:` line unless that code is a failure's. The few that cannot run here are in NOT_RUN, each with why.
//
// The examples are written for a lake with a space Sales (orders, views, reports), sources, users, roles and
// profiles: `lake()` and `prepare()` make what an example presumes with dlake's own commands, as the lake's admin
// in a config folder of its own (what an example creates is absent before it, what it reads, changes or deletes
// is there, every profile it names is logged in), and the files the examples read (pat.txt, report.sql,
// view.json, …) are in the working folder, as a reader has them. Placeholders a reader replaces (a job id `ID`, a
// reflection id `3f6c…`, the host `lake.example.com`) become what the lake holds (PLACEHOLDERS), and a password
// prompt is answered on standard input as a script answers it (standard input is otherwise closed: `dlake mcp`
// starts and ends with no client); nothing else of a line is changed. The hosted edition's examples (HOSTED) run
// apart, from every text in order, against an emulator of that edition. An external identity provider's JWT (the
// emulator trusts its key) is where the token exchange examples read it: a file, and `idp-cli token`.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { DEFAULT_USERS } from 'dlake-emulator';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, type RunResult } from '../helpers/dlake.js';
import {
  documentExamples,
  type Example,
  helpExamples,
  redirectedLine,
  withoutComment,
} from '../helpers/examples.js';
import { type Fixture, startFixture } from '../helpers/fixture.js';
import { runInProcess } from '../helpers/in-process.js';

const REPO = resolve(import.meta.dirname, '../..');
const SAMPLES = join(REPO, 'test/fixtures/samples');

/**
 * Examples that are not run, each matched by its command line, with why. Only what cannot run against an emulator
 * on this machine, or would end the fixture the later examples need.
 */
const NOT_RUN: [RegExp, string][] = [
  [
    /^dlake sql( --context \S+)?\s*$/,
    'opens the interactive SQL shell on a terminal (test/e2e/sql-shell.test.ts runs it in a pty)',
  ],
  [
    /^dlake top( --interval 5s)?$/,
    'a full-screen view refreshed until q is pressed (test/e2e/top.test.ts, in a pty)',
  ],
  [
    /^claude mcp add/,
    "registers dlake mcp with Claude Code's own command, not installed here (test/e2e/agents.test.ts)",
  ],
  [/--password-prompt/, 'asks for a password twice on a terminal (test/e2e/user.test.ts)'],
  [/^dlake completion bash > \/etc\//, 'writes into /etc'],
  [
    /^dlake completion zsh > /,
    "names zsh's own folder list (fpath), which the tests' bash does not have (test/unit/completion.test.ts)",
  ],
];

/**
 * The examples of the hosted edition: they run, from every text in order, against an emulator of that edition
 * (its default project is the one the README names), logged in with a PAT.
 */
const HOSTED = /api\.dremio\.cloud|--edition cloud|--project-id|\bdlake (project|engine) /;

/** The lake's users beyond the emulator's own: the people and robots the examples name. */
const USERS = [
  ...DEFAULT_USERS,
  { name: 'alice', password: 'alice-pass-1', admin: true },
  { name: 'ci-bot', password: 'ci-bot-pass-1', admin: true },
  { name: 'carol', password: 'carol-pass-1' },
  { name: 'svc-etl', clientId: 'ci-bot', clientSecret: 'ci-bot-secret-1', admin: true },
  // The service user an external JWT is exchanged for (the client `c` of the examples' --audience).
  { name: 'svc-idp', clientId: 'c', clientSecret: 'c-secret-1', admin: true },
];
const passwordOf = (name: string): string => USERS.find((u) => u.name === name)?.password ?? 'admin-pass-1';

/**
 * What a reader puts in place of a placeholder, from the lake the examples run against. `ID` is a job of the
 * lake's: one still running for `job cancel`, else the last one that completed.
 */
const PLACEHOLDERS: [RegExp, (r: Reader, line: string) => string | Promise<string>][] = [
  [/https:\/\/((lake|proxy|login)\.example\.com|api\.dremio\.cloud)/g, (r) => r.fx.emu.url],
  [/\b(PROJECT_)?UUID\b/g, (r) => r.project],
  [/grpc\+tls:\/\/lake\.example\.com:32010|grpc(\+tls)?:\/\/lake:32010/g, (r) => r.fx.emu.flight!.url],
  [
    /\b2f067496-7cf0-a70e-0222-34d53a5dc800\b|(?<=\s|")ID(?=\s|"|$)/g,
    (r, line) => r.jobId(/^dlake job cancel/.test(line)),
  ],
  [/3f6c…/g, (r) => r.reflectionId()],
  [/6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b/g, (r) => r.userId('bob')],
  [/5b0f8c1e-2d3a-4b5c-9d6e-7f8091a2b3c4/g, (r) => r.patId('bob')],
  [/7f1c2a9e-0d51-4d8e-9a3b-2b7f1f0f6c11/g, (r) => r.entityId(['Sales'])],
  [/(?<=DLAKE_CLIENT_ID=)…/g, () => 'ci-bot'],
  [/Ab3xYz9QdE4=/g, (r) => r.userTag('bob')],
  [/(?<=DLAKE_CLIENT_SECRET=)…/g, () => 'ci-bot-secret-1'],
];

/** The exit code a text promises for an example other than 0, with the text's words for it. */
const EXIT: [RegExp, number, string][] = [
  [/^dlake access why carol Sales\/eu\/orders --privilege SELECT/, 10, "exit 10: the answer 'no'"],
  [
    /^dlake (\S+ )+(delete|rm|cancel) (?!.*(-y|--yes|--dry-run)\b)/,
    2,
    'asks on a terminal; without one and without --yes it refuses (exit 2)',
  ],
];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Where the lake's admin keeps its own login, apart from the reader's (whose profiles the examples change). */
const HELPER_PROFILE = 'lake-admin';

/**
 * A reader following a text against one emulator: the working folder with the files the examples read, the
 * config folder the examples log in to, and the lake made (and made again) with dlake's own commands.
 */
class Reader {
  readonly dir = mkdtempSync(join(tmpdir(), 'dlake-examples-'));
  /** The lake admin's own config folder: what the examples do to their profiles never touches it. */
  private readonly helperDir = mkdtempSync(join(tmpdir(), 'dlake-examples-admin-'));
  readonly lakeSource = mkdtempSync(join(tmpdir(), 'dlake-examples-lake-'));
  constructor(
    readonly fx: Fixture,
    readonly hosted = false,
  ) {}

  /** The hosted edition's project (the emulator's default project). */
  get project(): string {
    return this.fx.emu.cloud!.projectId;
  }

  /** A PAT of the admin, as the hosted edition's users make one in its console. */
  adminPat(): string {
    const admin = this.fx.emu.state.userByName('admin')!;
    return this.fx.emu.state.issueToken(admin.id, 'pat', 30 * 24 * 3_600_000).token;
  }

  env(): Record<string, string> {
    return {
      HOME: this.dir,
      DLAKE_CONFIG_DIR: this.fx.configDir,
      DLAKE_URL: this.fx.emu.url,
      PASSWORD: passwordOf('ci-bot'),
      PG_PASSWORD: 'pg-secret-1',
      RUNNER_TEMP: this.dir,
      DLAKE_CLIENT_SECRET: 'ci-bot-secret-1',
      NEW_PASSWORD: 'bob-pass-2',
      // Where a CI runner or an identity provider leaves its ID token (a JWT the emulator trusts).
      ID_TOKEN_FILE: join(this.dir, 'id-token.jwt'),
      ACTIONS_ID_TOKEN_FILE: join(this.dir, 'id-token.jwt'),
      EDITOR: 'true',
      PAGER: '',
    };
  }

  /** dlake as the lake's admin (its own config folder); throws unless it exits 0 (or `allow` says otherwise). */
  async admin(args: string[], input?: string, allow = false): Promise<Run> {
    // The hosted edition's admin needs no login: a PAT in DLAKE_TOKEN, stored nowhere.
    const as = this.hosted
      ? { DLAKE_EDITION: 'cloud', DLAKE_PROJECT_ID: this.project, DLAKE_TOKEN: this.adminPat() }
      : { DLAKE_PROFILE: HELPER_PROFILE };
    const r = await runInProcess(args, {
      env: { DLAKE_CONFIG_DIR: this.helperDir, DLAKE_URL: this.fx.emu.url, ...as },
      input,
    });
    if (r.code !== 0 && !allow) throw new Error(`lake: dlake ${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
    return r;
  }

  private async json<T>(args: string[]): Promise<T> {
    return JSON.parse((await this.admin([...args, '-o', 'json'])).stdout) as T;
  }

  /** A job of the lake: one held running (for a cancel), else the last one that completed. */
  async jobId(running: boolean): Promise<string> {
    if (running) return (await this.admin(['sql', 'SELECT /* sleep:600000 */ 1', '--no-wait'])).stdout.trim();
    const done = this.fx.emu.jobs
      .list()
      .filter((j) => j.state === 'COMPLETED' && /^SELECT .*FROM (Samples|Sales)\./.test(j.sql));
    if (done.length) return done.at(-1)!.id;
    await this.admin(['sql', 'SELECT * FROM Sales.orders', '-o', 'csv']);
    return this.jobId(false);
  }

  async reflectionId(): Promise<string> {
    const list = await this.json<{ id: string }[]>(['reflection', 'list', 'Sales/orders']);
    if (list.length) return list[0]!.id;
    await this.admin(['reflection', 'create', 'Sales/orders', '--type', 'raw', '--display', 'id,amount']);
    return this.reflectionId();
  }

  async userId(name: string): Promise<string> {
    await this.present('user', name);
    return (await this.json<{ id: string }>(['user', 'get', name])).id;
  }

  async userTag(name: string): Promise<string> {
    await this.present('user', name);
    return (await this.json<{ tag: string }>(['user', 'get', name])).tag;
  }

  async patId(user: string): Promise<string> {
    await this.present('user', user);
    const list = await this.json<{ tid: string }[]>(['pat', 'list', user]);
    if (list.length) return list[0]!.tid;
    await this.admin(['pat', 'create', user, '--label', 'laptop', '--expires', '30d']);
    return this.patId(user);
  }

  async entityId(path: string[]): Promise<string> {
    return (await this.json<{ id: string }>(['catalog', 'get', path.join('/')])).id;
  }

  /** Makes a user, role, queue or source of that name unless the lake has it. */
  async present(kind: Kind, name: string): Promise<void> {
    if ((await this.admin([kind, 'get', name], undefined, true)).code === 0) return;
    if (kind === 'user') await this.admin(['user', 'create', name, '--email', `${name}@example.com`]);
    if (kind === 'role') await this.admin(['role', 'create', name]);
    if (kind === 'queue' || kind === 'engine') await this.admin([kind, 'create', '--name', name]);
    if (kind === 'source') {
      const types: Record<string, string[]> = {
        pg: ['--type', 'POSTGRES', '--config-file', 'pg.json'],
        s3: ['--type', 'S3', '--set', 'secure=true'],
      };
      const folder = join(this.lakeSource, name);
      mkdirSync(folder, { recursive: true });
      await this.chdir(() =>
        this.admin([
          'source',
          'create',
          name,
          ...(types[name] ?? ['--type', 'NAS', '--set', `path=${folder}`]),
        ]),
      );
    }
  }

  /** Removes a user, role, queue or source of that name if the lake has it. */
  async absent(kind: Kind, name: string): Promise<void> {
    await this.admin([kind, 'delete', name, '-y'], undefined, true);
  }

  /** Makes a space (one component), a folder (a name with "folder") or a view at `ref` unless the lake has it. */
  async catalogEntity(ref: string): Promise<void> {
    const path = ref.split('/');
    if (this.fx.emu.catalog.store.at(path)) return;
    const entity =
      path.length === 1
        ? { entityType: 'space', name: ref }
        : /folder/.test(ref)
          ? { entityType: 'folder', path }
          : { entityType: 'dataset', type: 'VIRTUAL_DATASET', path, sql: 'SELECT 1 AS x' };
    await this.admin(['catalog', 'create', '--file', '-'], JSON.stringify(entity));
  }

  /** Makes profile `name` logged in (as the admin) unless the reader has it so; `use` makes it the current one. */
  async profile(name: string, use = false): Promise<void> {
    // Read from the files first: before nearly every example the reader already has it so (two runs saved).
    if (this.hasProfile(name, use)) return;
    const known = await runInProcess(['profile', 'show', name], { env: this.env() });
    if (use) await runInProcess(['profile', 'use', name], { env: this.env() });
    if (known.code === 0 && this.fx.readJson('credentials.json').tokens?.[name]) return;
    await this.login(name);
  }

  /** Whether the reader's config folder has profile `name` with a token (and, with `current`, as the current one). */
  private hasProfile(name: string, current: boolean): boolean {
    try {
      const config = this.fx.readJson('config.json');
      if (!config.profiles?.[name] || (current && config.currentProfile !== name)) return false;
      return Boolean(this.fx.readJson('credentials.json').tokens?.[name]);
    } catch {
      return false;
    }
  }

  async login(profile: string): Promise<void> {
    if (this.hosted) {
      const args = [
        '--edition',
        'cloud',
        '--project-id',
        this.project,
        'login',
        '-p',
        profile,
        '--token-stdin',
      ];
      const r = await runInProcess(args, { env: this.env(), input: `${this.adminPat()}\n` });
      if (r.code !== 0) throw new Error(`lake: login -p ${profile}: ${r.stderr}`);
      return;
    }
    const flight = ['--flight-url', this.fx.emu.flight!.url];
    const r = await runInProcess(['login', '-p', profile, ...flight, '-u', 'admin', '--password-stdin'], {
      env: this.env(),
      input: 'admin-pass-1\n',
    });
    if (r.code !== 0) throw new Error(`lake: login -p ${profile}: ${r.stderr}`);
  }

  /** Runs `fn` with the reader's folder as the working directory (the files an example names are there). */
  async chdir<T>(fn: () => Promise<T>): Promise<T> {
    const before = process.cwd();
    process.chdir(this.dir);
    try {
      return await fn();
    } finally {
      process.chdir(before);
    }
  }

  /** The line as a reader types it here: placeholders replaced by what the lake holds. */
  async typed(command: string): Promise<string> {
    let line = command;
    if (/\/wlm\/queue\/ID\b/.test(line))
      line = line.replace(/\/wlm\/queue\/ID\b/, `/wlm/queue/${await this.queueId('etl')}`);
    for (const [pattern, value] of PLACEHOLDERS) {
      if (pattern.test(line)) line = line.replace(pattern, await value(this, line));
      pattern.lastIndex = 0;
    }
    // A password prompt answered as a script answers it (the tests have no terminal to type it on).
    if (promptedPassword(line) !== undefined) line += ' --password-stdin';
    return line;
  }

  private async queueId(name: string): Promise<string> {
    await this.present('queue', name);
    return (await this.json<{ id: string }>(['queue', 'get', name])).id;
  }

  async run(command: string): Promise<Run> {
    const line = await this.typed(command);
    const password = promptedPassword(command);
    const input = password === undefined ? undefined : `${password}\n`;
    const simple = redirectedLine(line);
    if (simple?.words[0] === 'dlake')
      return this.chdir(async () => {
        const stdin = simple.input ?? (simple.inputFile ? readFileSync(simple.inputFile, 'utf8') : input);
        const r = await runInProcess(simple.words.slice(1), { env: this.env(), input: stdin ?? '' });
        if (simple.outputFile === undefined) return r;
        writeFileSync(simple.outputFile, r.stdout);
        return { ...r, stdout: '' };
      });
    // The built dlake first, and the identity provider's own command line (`idp-cli token` prints its JWT).
    const path = [join(REPO, 'bin'), join(this.dir, 'bin'), process.env.PATH].join(delimiter);
    return bash(line, { ...cleanEnv(this.env()), PATH: path }, this.dir, input);
  }

  close(): void {
    for (const d of [this.dir, this.helperDir, this.lakeSource]) rmSync(d, { recursive: true, force: true });
  }
}

/** The password a `dlake login -u NAME` line prompts for, unless it reads one from standard input already. */
function promptedPassword(line: string): string | undefined {
  const login = /^dlake login\b.*\s-u (\S+)/.exec(line);
  return login && !line.includes('-stdin') ? passwordOf(login[1]!) : undefined;
}

/** Runs `line` in bash; standard input is `input`, or closed without it. */
function bash(line: string, env: Record<string, string>, cwd: string, input?: string): Promise<RunResult> {
  return new Promise((done) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-o', 'pipefail', '-c', line], {
      cwd,
      env,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    // A line that never reads its standard input may end before the answer is written.
    child.stdin?.on('error', () => {});
    child.stdin?.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (code, signal) => done({ code, signal, stdout, stderr }));
  });
}

function notRun(example: Example): string | undefined {
  return NOT_RUN.find(([pattern]) => pattern.test(example.command))?.[1];
}

function promisedExit(example: Example): number {
  return EXIT.find(([pattern]) => pattern.test(example.command))?.[1] ?? 0;
}

type Kind = 'user' | 'role' | 'queue' | 'source' | 'engine';

/**
 * What the lake holds before an example runs, as the text presumes it: what an example creates is not there yet,
 * what it reads, changes or deletes is, and so is every profile it names.
 */
async function prepare(reader: Reader, line: string): Promise<void> {
  if (!reader.hosted) await ensureLake(reader);
  // The profile an example chose with `profile use` is the reader's until the next example, and a logout lasts
  // until the next example too: the reader logs in again.
  if (!/\bdlake profile /.test(line)) await reader.profile('default', true);
  if (/~\/\.config\/fish\//.test(line))
    mkdirSync(join(reader.dir, '.config/fish/completions'), { recursive: true });
  const create =
    /\bdlake (user|role|source) create (?!-)(\S+)|\bdlake (queue|engine) create --name (\S+)/.exec(line);
  if (create) await reader.absent((create[1] ?? create[3]) as Kind, create[2] ?? create[4]!);
  const use =
    /\bdlake (user|role|queue|source|engine) (?:get|update|delete|rm|add-member|remove-member|enable|disable) (?!-)(\S+)/.exec(
      line,
    );
  if (use) await reader.present(use[1] as Kind, use[2]!);
  for (const m of line.matchAll(
    /\bdlake (?:pat \w+|access why|user (?!create)\w+) (?:user:)?(bob|carol|ci-bot|dave)\b/g,
  ))
    await reader.present('user', m[1]!);
  if (/\bdlake role (add|remove)-member /.test(line))
    for (const m of line.matchAll(/--user (\S+)/g)) await reader.present('user', m[1]!);
  if (/\bdlake (role|user) /.test(line))
    for (const m of line.matchAll(/--(?:add-)?role (\S+)/g)) await reader.present('role', m[1]!);
  for (const m of line.matchAll(/(?:-p |--profile |profile (?:use|show|delete) )'?([a-z][\w-]*)/g))
    if (!/^dlake login\b/.test(line) && m[1] !== 'old') await reader.profile(m[1]!);
  if (/profile delete old/.test(line)) await reader.profile('old');
  const gone = /\bdlake catalog (?:delete|rm) (?!-)(\S+)/.exec(line);
  if (gone) await reader.catalogEntity(gone[1]!);
  // The README's tour promotes the folder of CSV files itself.
  if (/"path": \["Samples", "sales"\]/.test(line))
    await reader.admin(['catalog', 'delete', 'Samples/sales', '-y']);
  // A PAT exchange exchanges the PAT the profile holds: the reader logged in with one.
  if (/token exchange pat$/.test(line))
    await reader.chdir(() =>
      runInProcess(['login', '--token-stdin'], { env: reader.env(), input: readFileSync('pat.txt', 'utf8') }),
    );
  // A ruleset or queue sent back is one read first, as a reader makes it.
  if (/queue\.json/.test(line)) await reader.present('queue', 'etl');
  if (/queue\.json/.test(line))
    writeFileSync(
      join(reader.dir, 'queue.json'),
      (await reader.admin(['queue', 'get', 'etl', '-o', 'json'])).stdout,
    );
  if (/--privilege \w+ &&/.test(line))
    await reader.admin(['catalog', 'grants', 'Sales/orders', '--grant', 'user:bob:SELECT']);
  const space = /"entityType": "space", "name": "(\w+)"/.exec(line);
  if (space) await reader.admin(['catalog', 'delete', space[1]!, '-y'], undefined, true);
}

/**
 * Runs `examples` in order against a fresh lake, one test each: those of the self-hosted edition, or with
 * `hosted` those of the hosted edition (HOSTED).
 */
function runsAsPrinted(title: string, examples: () => Example[], hosted = false): void {
  describe(title, () => {
    let fx: Fixture;
    let reader: Reader;
    beforeAll(async () => {
      const idp = await generateKeyPair('RS256');
      const jwtPublicKeyPem = await exportSPKI(idp.publicKey);
      fx = await startFixture(
        hosted ? { edition: 'cloud' } : { flightPort: 0, users: USERS, samplesDir: SAMPLES, jwtPublicKeyPem },
      );
      reader = new Reader(fx, hosted);
      if (hosted) await hostedLake(reader);
      else await lake(reader);
      // An external identity provider's ID token for the admin, valid an hour: in the file a CI runner leaves it
      // in, in a file named jwt, and printed by the provider's command line.
      const jwt = await new SignJWT({})
        .setProtectedHeader({ alg: 'RS256' })
        .setSubject('admin')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(idp.privateKey);
      writeFileSync(join(reader.dir, 'id-token.jwt'), jwt);
      writeFileSync(join(reader.dir, 'jwt'), jwt);
      mkdirSync(join(reader.dir, 'bin'));
      // The reader uses Claude Code (its folder in the home): `agents install` finds a host to register with.
      mkdirSync(join(reader.dir, '.claude'));
      writeFileSync(join(reader.dir, 'bin', 'idp-cli'), `#!/bin/sh\nprintf %s '${jwt}'\n`, { mode: 0o755 });
    });
    afterAll(async () => {
      reader?.close();
      await fx?.close();
    });
    for (const example of examples().filter(
      (e) => (HOSTED.test(e.command) || HOSTED.test(e.blockStart ?? '')) === hosted,
    )) {
      const why = notRun(example);
      it.skipIf(why !== undefined)(
        `${example.where}: ${example.printed}${why ? ` (not run: ${why})` : ''}`,
        async () => {
          await prepare(reader, example.command);
          const typed = await reader.typed(example.command);
          const r = await reader.run(example.command);
          const expected = promisedExit(example);
          const said = `${typed}\n--- stdout:\n${r.stdout.slice(0, 2000)}\n--- stderr:\n${r.stderr}`;
          expect(r.code, said).toBe(expected);
          if (expected === 0) expect(r.stderr, said).not.toMatch(/^error:/m);
        },
      );
    }
  });
}

/** The views of the lake's space Sales, each with its SQL, containers first. */
const SALES: [string, string | undefined][] = [
  ['Sales/reports', undefined],
  ['Sales/eu', undefined],
  ['Sales/curated', undefined],
  [
    'Sales/orders',
    "SELECT CAST(ROW_NUMBER() OVER () AS BIGINT) AS id, product AS customer, units * price AS amount, region, DATE '2025-01-01' AS day FROM Samples.sales",
  ],
  ['Sales/v_sales', 'SELECT * FROM Samples.sales'],
  ['Sales/v_orders', 'SELECT * FROM Sales.orders'],
  ['Sales/orders_by_region', 'SELECT region, SUM(amount) AS amount FROM Sales.orders GROUP BY region'],
  ['Sales/reports/q1', "SELECT * FROM Sales.orders WHERE day < DATE '2025-04-01'"],
  ['Sales/eu/orders', "SELECT * FROM Sales.orders WHERE region <> 'North'"],
  ['Sales/curated/orders', 'SELECT * FROM Sales.orders'],
];

/** The files the examples read from the working folder, as a reader has them. */
function readerFiles(pat: string): Record<string, string> {
  return {
    'pat.txt': `${pat}\n`,
    'secret.txt': 'ci-bot-secret-1\n',
    'report.sql': 'SELECT region, SUM(units) AS units FROM Samples.sales GROUP BY region ORDER BY region\n',
    'nightly.sql': 'SELECT region, amount FROM Sales.orders_by_region ORDER BY region;\n',
    'checks.sql': 'SELECT COUNT(*) AS n FROM Sales.orders;\n',
    'cleanup.sql': 'SELECT 1 AS x;\nSELECT 2 AS y;\n',
    'from-a-colleague.sql': 'SELECT * FROM Sales.orders_by_region;\n',
    'space.json': '{"entityType": "space", "name": "Marketing"}\n',
    'view.json': `${JSON.stringify({ entityType: 'dataset', type: 'VIRTUAL_DATASET', path: ['Sales', 'v_north'], sql: "SELECT * FROM Sales.orders WHERE region = 'North'" })}\n`,
    'promote.json': `${JSON.stringify({ entityType: 'dataset', type: 'PHYSICAL_DATASET', path: ['Samples', 'nested'], format: { type: 'Text', extractHeader: true } })}\n`,
    'pg.json': `${JSON.stringify({ hostname: 'pg.example.com', port: 5432, databaseName: 'sales', username: 'etl', password: 'pg-secret-1', authenticationType: 'MASTER' })}\n`,
    'queue.json': `${JSON.stringify({ name: 'etl', cpuTier: 'MEDIUM' })}\n`,
    'README.md': '# Sales\n\nOrders and the reports made from them.\n',
    'prod-names.yaml': 'users:\n  carol: carol\nroles:\n  loaders: loaders\n',
    [join('lake', '.keep')]: '',
    [join('csv-files', 'x.csv')]: 'a\n1\n',
  };
}

/** Makes the lake the examples are written for (what is missing of it), with dlake's own commands. */
async function ensureLake(reader: Reader): Promise<void> {
  const store = reader.fx.emu.catalog.store;
  if (!store.at(['Samples', 'sales'])) {
    const promote = {
      entityType: 'dataset',
      type: 'PHYSICAL_DATASET',
      path: ['Samples', 'sales'],
      format: { type: 'Text', extractHeader: true },
    };
    await reader.admin(['catalog', 'create', '--file', '-'], JSON.stringify(promote));
  }
  if (!store.at(['Samples', 'events.parquet'])) {
    const promote = {
      entityType: 'dataset',
      type: 'PHYSICAL_DATASET',
      path: ['Samples', 'events.parquet'],
      format: { type: 'Parquet' },
    };
    await reader.admin(['catalog', 'create', '--file', '-'], JSON.stringify(promote));
  }
  if (!store.at(['Lake'])) {
    const folder = join(reader.lakeSource, 'Lake');
    mkdirSync(join(folder, 'exports'), { recursive: true });
    await reader.admin([
      'source',
      'create',
      'Lake',
      '--type',
      'NAS',
      '--set',
      `path=${folder}`,
      '--set',
      'allowCreateDrop=true',
    ]);
  }
  if (!store.at(['Sales']))
    await reader.admin(['catalog', 'create', '--file', '-'], '{"entityType": "space", "name": "Sales"}');
  for (const [ref, sql] of SALES) {
    const path = ref.split('/');
    if (store.at(path)) continue;
    const entity = sql
      ? { entityType: 'dataset', type: 'VIRTUAL_DATASET', path, sql }
      : { entityType: 'folder', path };
    await reader.admin(['catalog', 'create', '--file', '-'], JSON.stringify(entity));
  }
}

/** The hosted edition's lake: the reader logged in with a PAT, which pat.txt holds too. */
async function hostedLake(reader: Reader): Promise<void> {
  await reader.login('default');
  writeFileSync(join(reader.dir, 'pat.txt'), `${reader.adminPat()}\n`);
}

/** The lake a text's examples start from: its catalog, a login, a few principals, the files they read. */
async function lake(reader: Reader): Promise<void> {
  await reader.admin(['login', '-u', 'admin', '--password-stdin'], 'admin-pass-1\n');
  const login = await runInProcess(['login', '-u', 'admin', '--password-stdin'], {
    env: reader.env(),
    input: 'admin-pass-1\n',
  });
  expect(login.code, login.stderr).toBe(0);
  await ensureLake(reader);
  for (const role of ['loaders', 'interns', 'auditors']) await reader.present('role', role);
  for (const user of ['bob']) await reader.present('user', user);
  const pat = (
    await reader.admin(['pat', 'create', 'admin', '--label', 'examples', '--expires', '30d'])
  ).stdout.trim();
  for (const [name, text] of Object.entries(readerFiles(pat))) {
    mkdirSync(dirname(join(reader.dir, name)), { recursive: true });
    writeFileSync(join(reader.dir, name), text);
  }
}

const README = readFileSync(join(REPO, 'README.md'), 'utf8');
const GUIDE = readFileSync(join(REPO, 'docs/guide.md'), 'utf8');

/** The Examples of the root help and of every command's help, in the order `dlake describe` lists the commands. */
async function helpTexts(): Promise<Example[]> {
  const root = await runInProcess(['--help']);
  const tree = JSON.parse((await runInProcess(['describe', '-o', 'json'])).stdout) as {
    commands: { path: string[]; examples?: string[] }[];
  };
  return [
    ...helpExamples(root.stdout, 'dlake --help'),
    ...tree.commands.flatMap((c) =>
      (c.examples ?? []).map((printed) => ({
        where: `dlake ${c.path.join(' ')} --help`,
        printed,
        command: withoutComment(printed),
      })),
    ),
  ];
}
const HELP = await helpTexts();

runsAsPrinted('the help', () => HELP);
runsAsPrinted('README.md', () => documentExamples(README, 'README.md'));
runsAsPrinted('docs/guide.md', () => documentExamples(GUIDE, 'docs/guide.md'));
runsAsPrinted(
  'the hosted edition',
  () => [...HELP, ...documentExamples(README, 'README.md'), ...documentExamples(GUIDE, 'docs/guide.md')],
  true,
);
