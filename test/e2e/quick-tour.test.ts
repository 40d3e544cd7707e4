// The README's Quick tour, run as printed: its three blocks (the setup, the tour, the end), read from README.md,
// typed line by line into one shell in the clone, as a newcomer types them after `npm install`. Once as root and
// once as a user who cannot write npm's global folder (Debian's Node: /usr), each with a home of their own and the
// PATH a login shell gives: whatever `dlake` the tour runs is there because the tour put it there. The clone must
// be left as it was: the tour writes its file elsewhere.
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../helpers/csv.js';
import { freePort } from '../helpers/free-port.js';
import { REPO } from '../helpers/package.js';
import {
  cannotSwitchUser,
  loginPath,
  NOBODY,
  ROOT,
  Session,
  type TourUser,
  tourBlocks,
  typeBlock,
} from '../helpers/tour.js';
import { until } from '../helpers/until.js';

const README = readFileSync(join(REPO, 'README.md'), 'utf8');

/** The clone's untracked and changed files, as `git status` lists them. */
const gitStatus = (): string =>
  execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: REPO, encoding: 'utf8' });

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe('README Quick tour', () => {
  it('has a setup, a tour and an end: dlake on the PATH, the emulator in the background, and its stop', () => {
    const { setup, tour, end } = tourBlocks(README);
    expect(setup).toEqual([
      'export PATH="$PWD/bin:$PATH"',
      'dlake-emulator --port 9047 &',
      'export DLAKE_URL=http://127.0.0.1:9047',
      'cd "$(mktemp -d)"',
    ]);
    expect(tour.length).toBeGreaterThan(5);
    expect(tour.every((line) => /(^|\| )dlake /.test(line))).toBe(true);
    expect(end).toEqual(['kill %dlake-emulator', 'cd -']);
    // Nothing to install: the setup writes nothing in npm's global folder, so it needs no root.
    expect(setup.join('\n')).not.toMatch(/\bnpm\b|sudo/);
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
          const { setup, tour, end } = tourBlocks(README.replaceAll('9047', port));
          const results = [...(await typeBlock(shell, setup)), ...(await typeBlock(shell, tour))];
          // The dlake that ran is this clone's, put on the PATH by the setup (none came with the login PATH).
          expect((await shell.type('command -v dlake dlake-emulator')).stdout).toBe(
            `${join(REPO, 'bin', 'dlake')}\n${join(REPO, 'bin', 'dlake-emulator')}\n`,
          );
          const tourEnd = results.at(-1)!.cwd;
          results.push(...(await typeBlock(shell, end)));
          for (const r of results) {
            expect(r.code, `${r.line}\n${r.stderr}`).toBe(0);
            expect(r.stderr, r.line).not.toMatch(/^error:/m);
          }
          const output = results.map((r) => r.stdout).join('\n');
          expect(output).toMatch(/North/);
          expect(output).toContain('Samples');
          // The export landed in the scratch folder, whole: the emulator command's 20,000 generated rows and a header.
          expect(tourEnd).not.toBe(REPO);
          expect(parseCsv(readFileSync(join(tourEnd, 'big.csv'), 'utf8'))).toHaveLength(20_001);
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
