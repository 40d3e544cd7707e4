// The README's Quick tour as a newcomer follows it: its code blocks read from README.md, typed line by line into one
// shell session, as a chosen user (test/e2e/quick-tour.test.ts in a clone, test/e2e/package.test.ts with the
// release tarballs installed).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, dirname } from 'node:path';
import { REPO } from './package.js';
import { until } from './until.js';

/** The Quick tour's code blocks of `readme`: the setup, the tour, the end; each the lines a user types. */
export function tourBlocks(readme: string): { setup: string[]; tour: string[]; end: string[] } {
  const section = readme.split(/^## Quick tour$/m)[1]?.split(/^## /m)[0] ?? '';
  const [setup = [], tour = [], end = []] = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
    m[1]!
      .split('\n')
      .map((line) => line.replace(/\s+#\s.*$/, '').trim())
      .filter(Boolean),
  );
  return { setup, tour, end };
}

/** The user a tour runs as: root, or `nobody` through setpriv (no password, no login, no change to the machine). */
export interface TourUser {
  name: string;
  uid: number;
  gid: number;
}
export const ROOT: TourUser = { name: 'root', uid: 0, gid: 0 };
export const NOBODY: TourUser = { name: 'nobody', uid: 65534, gid: 65534 };

/** setpriv's arguments that run what follows them as `user`. */
const asUser = (user: TourUser): string[] => [
  `--reuid=${user.uid}`,
  `--regid=${user.gid}`,
  '--clear-groups',
  '--',
];

/** Why a tour as `nobody` cannot run here, or undefined when it can. */
export function cannotSwitchUser(): string | undefined {
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
export interface LineResult {
  line: string;
  code: number;
  /** The shell's working directory after the line. */
  cwd: string;
  stdout: string;
  stderr: string;
}

/**
 * A shell session: bash reading the user's lines from its standard input, as it reads them from a terminal, in the
 * clone (or `cwd`). After each line it reports the line's exit code and its working directory on a descriptor of its own.
 */
export class Session {
  private stdout = '';
  private stderr = '';
  private reports = '';
  private readonly child;

  constructor(user: TourUser, env: Record<string, string>, cwd = REPO) {
    const bash = ['bash', '--noprofile', '--norc'];
    const [cmd, ...args] = user.uid === 0 ? bash : ['setpriv', ...asUser(user), ...bash];
    // A process group of its own, so that what the session leaves running (the emulator, on a failure) goes with it.
    this.child = spawn(cmd!, args, {
      cwd,
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
    // The group's id is bash's pid. Once bash has exited, a process with that pid is another's (the kernel gives
    // no process the id of a group that still has members), and so is any group of that id: leave it be.
    const pid = this.child.pid!;
    const exited = this.child.exitCode !== null || this.child.signalCode !== null;
    if (exited && existsSync(`/proc/${pid}`)) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Nothing of it is left.
    }
  }
}

/** The PATH of a new user's login shell: where node and the system's commands are, nothing of npm's or ours. */
export function loginPath(): string {
  return [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(delimiter);
}

/**
 * Types `lines` as the tour's reader does: after a line that starts a background job (the emulator) they wait for
 * its banner, and the password prompt of `dlake login` gets the password the way scripts give it (it needs a
 * terminal).
 */
export async function typeBlock(shell: Session, lines: string[]): Promise<LineResult[]> {
  const results: LineResult[] = [];
  for (const line of lines) {
    const prompts = /^dlake login\b/.test(line) && !line.includes('-stdin');
    results.push(await shell.type(line, prompts ? `${line} --password-stdin <<< admin-pass-1` : line));
    if (line.endsWith('&'))
      await until(() => shell.printed().includes('listening on'), 'the emulator listens');
  }
  return results;
}
