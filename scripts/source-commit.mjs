// The commit a build is made from and that commit's date, for `dlake --version` (src/build-info.ts): the
// commit's date rather than the build's, so that building the same commit twice gives the same bundle.
// Nothing when the sources are not a git checkout (or git is missing): the version then says only how it was built.
import { execFileSync } from 'node:child_process';

/** `{ commit: '7414bab', date: '2026-11-27' }`, or `{}`. */
export function sourceCommit() {
  try {
    const [commit, date] = execFileSync('git', ['log', '-1', '--format=%h%n%cs'], {
      cwd: new URL('..', import.meta.url),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .trim()
      .split('\n');
    return commit && date ? { commit, date } : {};
  } catch {
    return {};
  }
}
