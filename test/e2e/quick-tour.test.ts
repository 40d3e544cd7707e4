// The README's Quick tour, run as printed: its three blocks (the setup, the tour, the end), read from README.md,
// typed line by line into one shell in the clone, as a newcomer types them after `npm install`. Once as root and
// once as a user who cannot write npm's global folder (Debian's Node: /usr), each with a home of their own and the
// PATH a login shell gives: whatever `dlake` the tour runs is there because the tour put it there. The clone must
// be left as it was: the tour writes its file elsewhere.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../helpers/csv.js';
import { freePort } from '../helpers/free-port.js';
import { REPO } from '../helpers/package.js';
import { until } from '../helpers/until.js';

const README = readFileSync(join(REPO, 'README.md'), 'utf8');

/** The Quick tour's code blocks, each a list of the lines a user types (comments dropped). */
function tourBlocks(): string[][] {
  const section = README.split(/^## Quick tour$/m)[1]?.split(/^## /m)[0] ?? '';
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
    m[1]!
      .split('\n')
      .map((line) => line.replace(/\s+#\s.*$/, '').trim())
      .filter(Boolean),
  );
}

/** The clone's untracked and changed files, as `git status` lists them. */
const gitStatus = (): string =>
  execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: REPO, encoding: 'utf8' });

/** The user a tour runs as: root, or `nobody` through setpriv (no password, no login, no change to the machine). */
interface TourUser {
  name: string;
  uid: number;
  gid: number;
}
const ROOT: TourUser = { name: 'root', uid: 0, gid: 0 };
const NOBODY: TourUser = { name: 'nobody', uid: 65534, gid: 65534 };

/** setpriv's arguments that run what follows them as `user`. */
const asUser = (user: TourUser): string[] => [
  `--reuid=${user.uid}`,
  `--regid=${user.gid}`,
  '--clear-groups',
  '--',
];

/** Why a tour as `nobody` cannot run here, or undefined when it can. */
function cannotSwitchUser(): string | undefined {
  if (process.getuid?.() !== 0) return 'only root can run a command as another user';
  try {
    execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'setpriv (util-linux) is not installed';
  }
  try {
    // node and the clone must be theirs to run and read (not so for a node installed under root's home).
    execFileSync('setpriv', [...asUser(NOBODY), process.execPath, '-e', '0'], { cwd: REPO, stdio: 'ignore' });
  } catch {
    return `${NOBODY.name} cannot run ${process.execPath} in ${REPO}`;
  }
  return undefined;
}

/** What one line printed, and the shell's state after it. */
interface LineResult {
  line: string;
  code: number;
  /** The shell's working directory after the line. */
  cwd: string;
  stdout: string;
  stderr: string;
}

/**
 * A shell session: bash reading the user's lines from its standard input, as it reads them from a terminal, in the
 * clone. After each line it reports the line's exit code and its working directory on a descriptor of its own.
 */
class Session {
  private stdout = '';
  private stderr = '';
  private reports = '';
  private readonly child;

  constructor(user: TourUser, env: Record<string, string>) {
    const bash = ['bash', '--noprofile', '--norc'];
    const [cmd, ...args] = user.uid === 0 ? bash : ['setpriv', ...asUser(user), ...bash];
    // A process group of its own, so that what the session leaves running (the emulator, on a failure) goes with it.
    this.child = spawn(cmd!, args, {
      cwd: REPO,
      env,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => (this.stdout += d));
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    (this.child.stdio[3] as NodeJS.ReadableStream).setEncoding('utf8');
    (this.child.stdio[3] as NodeJS.ReadableStream).on('data', (d: string) => (this.reports += d));
  }

  /** Types `line` and waits for the shell to be done with it. */
  async type(line: string, typed = line): Promise<LineResult> {
    const [out, err, reported] = [this.stdout.length, this.stderr.length, this.reports.length];
    this.child.stdin!.write(`${typed}\nprintf '%s %s\\n' "$?" "$PWD" >&3\n`);
    await until(
      () => this.reports.length > reported && this.reports.endsWith('\n'),
      `\`${line}\` ends`,
      30_000,
    );
    const report = this.reports.slice(reported).trimEnd();
    const [code, ...cwd] = report.split(' ');
    return {
      line,
      code: Number(code),
      cwd: cwd.join(' '),
      stdout: this.stdout.slice(out),
      stderr: this.stderr.slice(err),
    };
  }

  /** Everything the session printed, for assertion messages and for what background jobs print. */
  printed(): string {
    return this.stdout + this.stderr;
  }

  /** Types `exit`; then stops whatever of the session is still running (a line that hangs, a background job). */
  async exit(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const ended = new Promise((done) => this.child.on('close', done));
      this.child.stdin!.end('exit\n');
      await Promise.race([ended, new Promise((done) => setTimeout(done, 5000))]);
    }
    try {
      process.kill(-this.child.pid!, 'SIGKILL');
    } catch {
      // Nothing of it is left.
    }
  }
}

/** The PATH of a new user's login shell: where node and the system's commands are, nothing of npm's or ours. */
function loginPath(): string {
  return [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(delimiter);
}

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe('README Quick tour', () => {
  it('has a setup, a tour and an end: dlake on the PATH, the emulator in the background, and its stop', () => {
    const [setup, tour, end] = tourBlocks();
    expect(setup).toEqual([
      'export PATH="$PWD/bin:$PATH"',
      'dlake-emulator --port 9047 &',
      'export DLAKE_URL=http://127.0.0.1:9047',
      'cd "$(mktemp -d)"',
    ]);
    expect(tour!.length).toBeGreaterThan(5);
    expect(tour!.every((line) => /(^|\| )dlake /.test(line))).toBe(true);
    expect(end).toEqual(['kill %dlake-emulator', 'cd -']);
    // Nothing to install: the setup writes nothing in npm's global folder, so it needs no root.
    expect(setup!.join('\n')).not.toMatch(/\bnpm\b|sudo/);
  });

  const users: [TourUser, string | undefined][] = [
    [ROOT, undefined],
    [NOBODY, cannotSwitchUser()],
  ];
  for (const [user, skip] of users) {
    it.skipIf(skip !== undefined)(
      `runs as printed for ${user.name}${user.uid ? ", who cannot write npm's global folder" : ''}, and leaves the clone as it was${skip ? ` (skipped: ${skip})` : ''}`,
      async () => {
        const before = gitStatus();
        const home = mkdtempSync(join(tmpdir(), `dlake-tour-${user.name}-`));
        scratch.push(home);
        chownSync(home, user.uid, user.gid);
        // On a shared machine the README's port may be taken: the same lines on a free one.
        const port = String(await freePort());
        const env = {
          HOME: home,
          USER: user.name,
          PATH: loginPath(),
          LANG: 'C.UTF-8',
          TMPDIR: home,
          npm_config_update_notifier: 'false',
        };
        const shell = new Session(user, env);
        try {
          if (user.uid !== 0) {
            // The situation of the report: npm's global folder is not this user's to write.
            const prefix = (await shell.type('npm prefix -g')).stdout.trim();
            expect((await shell.type(`test -w '${prefix}'`)).code, `${user.name} can write ${prefix}`).toBe(
              1,
            );
          }
          const [setup, tour, end] = tourBlocks().map((b) => b.map((l) => l.replaceAll('9047', port)));
          const results: LineResult[] = [];
          for (const line of setup!) {
            results.push(await shell.type(line));
            // A person waits for the emulator's banner before typing on.
            if (line.endsWith('&'))
              await until(() => shell.printed().includes('listening on'), 'the emulator listens');
          }
          for (const line of tour!) {
            // The password prompt needs a terminal; here the password comes the way scripts give it.
            const prompts = /^dlake login\b/.test(line) && !line.includes('-stdin');
            results.push(
              await shell.type(line, prompts ? `${line} --password-stdin <<< admin-pass-1` : line),
            );
          }
          // The dlake that ran is this clone's, put on the PATH by the setup (none came with the login PATH).
          expect((await shell.type('command -v dlake dlake-emulator')).stdout).toBe(
            `${join(REPO, 'bin', 'dlake')}\n${join(REPO, 'bin', 'dlake-emulator')}\n`,
          );
          const tourEnd = results.at(-1)!.cwd;
          for (const line of end!) results.push(await shell.type(line));
          for (const r of results) {
            expect(r.code, `${r.line}\n${r.stderr}`).toBe(0);
            expect(r.stderr, r.line).not.toMatch(/^error:/m);
          }
          const output = results.map((r) => r.stdout).join('\n');
          expect(output).toMatch(/North/);
          expect(output).toContain('Samples');
          // The export landed in the scratch folder, whole: the emulator's 1,000 generated rows and a header.
          expect(tourEnd).not.toBe(REPO);
          expect(parseCsv(readFileSync(join(tourEnd, 'big.csv'), 'utf8'))).toHaveLength(1001);
          // The end stopped the emulator and went back to the clone.
          await until(() => shell.printed().includes('Received SIGTERM, stopping.'), 'the emulator stops');
          expect(results.at(-1)!.cwd).toBe(REPO);
          expect(gitStatus()).toBe(before);
        } catch (e) {
          throw new Error(`${(e as Error).message}\n--- the session printed:\n${shell.printed()}`);
        } finally {
          await shell.exit();
        }
      },
      120_000,
    );
  }
});
