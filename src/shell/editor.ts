// `\e` in the SQL shell: the query in the user's editor ($VISUAL, else $EDITOR, else vi, as git and psql look
// for one), in a private temporary file (0600 in a 0700 folder, removed afterwards). The editor gets the
// terminal meanwhile, as the pager does.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { readTextFile } from '../util/files.js';
import { withTerminalHandedOver } from './handover.js';
import type { KeyRouter } from './keys.js';

/** The editor command line of the environment. */
function editorCommand(env: NodeJS.ProcessEnv): string {
  return env.VISUAL?.trim() || env.EDITOR?.trim() || 'vi';
}

/** A file name as one word of a POSIX shell command line. */
function shellWord(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * Opens `text` in the editor; the text saved, or undefined when the editor left it as it was (psql then
 * drops the query). An editor that fails (cannot start, exits non-zero) is a usage error: nothing is run.
 */
export async function editText(ctx: Context, keys: KeyRouter, text: string): Promise<string | undefined> {
  const editor = editorCommand(ctx.env);
  const dir = mkdtempSync(join(tmpdir(), 'dlake-edit-'));
  const file = join(dir, 'query.sql');
  const initial = text && !text.endsWith('\n') ? `${text}\n` : text;
  writeFileSync(file, initial, { mode: 0o600 });
  try {
    const code = await withTerminalHandedOver(
      ctx,
      keys,
      () =>
        new Promise<number | string>((resolve) => {
          // $EDITOR is a command line (e.g. `code --wait`), as git and psql read it.
          const child = spawn(`${editor} ${shellWord(file)}`, {
            shell: true,
            stdio: 'inherit',
            env: ctx.env,
          });
          child.on('error', (e) => resolve(e.message));
          child.on('close', (status, signal) => resolve(status ?? signal ?? 1));
        }),
    );
    if (code !== 0) {
      throw new UsageError(
        `the editor (${editor}) ended with ${typeof code === 'number' ? `exit code ${code}` : code}; nothing was run`,
        {
          hint: 'set VISUAL or EDITOR to the editor to use',
        },
      );
    }
    const edited = readTextFile(file);
    return edited === initial ? undefined : edited;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
