// The definitions folder (docs/definitions-as-code.md, "The folder"): reading every definition file in it, and
// writing what `pull` read into it. The folder is dlake's to write and only its own: nothing is written or
// renamed through a symbolic link, temporary files are created exclusively in a staging folder of dlake's own,
// and a pull writes every file or leaves the folder as it was. A link is read when it stays inside the folder
// and refused otherwise, never skipped: a file skipped would read as an entity no file names (--prune).
import {
  constants,
  copyFileSync,
  type Dirent,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parse } from 'yaml';
import { type DlakeError, LocalIOError, UsageError } from '../errors.js';
import { describeFsError, readCheckedFile, USER_FILE_MAX_BYTES } from '../util/files.js';
import { firstLine } from '../util/first-line.js';
import { secretsInForce } from '../util/secrets.js';
import {
  type Definition,
  definitionKey,
  definitionLabel,
  formatDefinition,
  parseDefinition,
} from './definitions.js';
import { fileFor } from './layout.js';

/** What reading the folder took in: said with a plan that deletes, so that a reviewer sees what decided it. */
export interface FolderRead {
  /** The definition files read (a file reached under two names counts once). */
  files: number;
  /** The folders read, the top one included. */
  folders: number;
  /** The symbolic links followed (each stays inside the folder). */
  links: number;
}

export const emptyRead = (): FolderRead => ({ files: 0, folders: 0, links: 0 });

/** `Read 42 definition files in lake (3 folders, 1 link).` */
export function describeRead(dir: string, read: FolderRead): string {
  const n = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;
  const links = read.links ? `, ${n(read.links, 'link')}` : '';
  return `Read ${n(read.files, 'definition file')} in ${dir} (${n(read.folders, 'folder')}${links}).`;
}

/** A definition file's name: `*.yaml` or `*.yml`, in any case. */
const DEFINITION_NAME = /\.ya?ml$/i;

const byName = (a: Dirent, b: Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Whether `path` (absolute, resolved) is `top` or lies below it. */
const inside = (top: string, path: string) =>
  path === top || path.startsWith(top.endsWith(sep) ? top : top + sep);

/** How messages name a path of the folder: relative to it (the folder's own name for itself). */
const named = (dir: string, path: string) => relative(dir, path) || dir;

/** Failures of the device or the system rather than of the folder's content: exit 9, as a failed write. */
const LOCAL_IO = new Set(['EIO', 'EMFILE', 'ENFILE', 'ENOMEM', 'ESTALE']);

/**
 * The error for what could not be read: exit 9 for a failing device (nothing was planned or sent), exit 2 for
 * the rest (a file missing, unreadable, or not what its name says).
 */
function readError(what: string, e: unknown): DlakeError {
  const message = `cannot read ${what}: ${describeFsError(e)}`;
  return LOCAL_IO.has((e as NodeJS.ErrnoException)?.code ?? '')
    ? new LocalIOError(message, { cause: e, hint: 'nothing was planned, applied or written' })
    : new UsageError(message, { cause: e });
}

/**
 * A definition file's text (UTF-8), through the one checked read (a regular file, opened without blocking, read
 * with a bound), as every file a user names is: the folder's walk refused what is not a file, and this read
 * refuses what took its place since.
 */
function readDefinitionFile(file: string): string {
  try {
    return readCheckedFile(file, { maxBytes: USER_FILE_MAX_BYTES }).toString('utf8');
  } catch (e) {
    throw readError(file, e);
  }
}

/**
 * The definition files under `dir`, by the names they have there, in name order. A symbolic link (to a file or
 * a folder) is followed when its target stays inside `dir`, and refused otherwise (exit 2, naming it); a file or
 * folder reached under two names is read once. A `*.yaml` that is no regular file (a FIFO, a device) is
 * refused: it could block, or never end.
 */
function definitionFiles(dir: string, read: FolderRead): string[] {
  let top: string;
  try {
    top = realpathSync(dir);
    if (!statSync(top).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
  } catch (e) {
    throw readError(`the folder ${dir}`, e);
  }
  const filesSeen = new Set<string>();
  const foldersSeen = new Set<string>();
  const out: string[] = [];
  const refuse = (path: string, why: string) =>
    new UsageError(`${named(dir, path)} ${why}`, {
      hint: `dlake reads a link in ${dir} only when it leads to a file or folder inside ${dir}: copy what it names into the folder, or link to a place inside it`,
    });
  // Iterative, not recursive: a folder tree of any depth is read without growing the stack.
  const folders: { path: string; real: string }[] = [{ path: dir, real: top }];
  foldersSeen.add(top);
  while (folders.length) {
    const folder = folders.pop()!;
    read.folders++;
    let entries: Dirent[];
    try {
      entries = readdirSync(folder.path, { withFileTypes: true });
    } catch (e) {
      throw readError(`the folder ${folder.path}`, e);
    }
    const below: { path: string; real: string }[] = [];
    for (const entry of entries.sort(byName)) {
      const path = join(folder.path, entry.name);
      const isDefinitionName = DEFINITION_NAME.test(entry.name);
      if (entry.isSymbolicLink()) {
        let real: string;
        try {
          real = realpathSync(path);
        } catch (e) {
          // A link to nothing names no definition; one with a definition's name is refused, never skipped.
          if (!isDefinitionName) continue;
          throw refuse(path, `is a symbolic link that leads nowhere (${describeFsError(e)})`);
        }
        const stats = statSync(real);
        if (!stats.isDirectory() && !isDefinitionName) continue;
        if (!inside(top, real)) throw refuse(path, `is a symbolic link to ${real}, outside ${dir}`);
        if (stats.isDirectory()) {
          if (foldersSeen.has(real)) continue;
          foldersSeen.add(real);
          read.links++;
          below.push({ path, real });
        } else {
          if (!stats.isFile())
            throw refuse(path, 'is a symbolic link to something that is not a regular file');
          if (filesSeen.has(real)) continue;
          filesSeen.add(real);
          read.links++;
          out.push(path);
        }
      } else if (entry.isDirectory()) {
        const real = join(folder.real, entry.name);
        if (foldersSeen.has(real)) continue;
        foldersSeen.add(real);
        below.push({ path, real });
      } else if (isDefinitionName) {
        if (!entry.isFile()) {
          throw new UsageError(`${named(dir, path)} is not a regular file (a FIFO, a socket or a device)`);
        }
        const real = join(folder.real, entry.name);
        if (filesSeen.has(real)) continue;
        filesSeen.add(real);
        out.push(path);
      }
    }
    // Depth first, in name order: the order in which the files are named is the order of their messages.
    folders.push(...below.reverse());
  }
  read.files = out.length;
  return out.sort();
}

/**
 * Every definition file under `dir`, in any layout; two files naming one path are refused, as is any file
 * that cannot be read or is no definition (exit 2): a plan is never made from part of the folder. `read`, when
 * given, receives what was read.
 */
export function readDefinitions(dir: string, read: FolderRead = emptyRead()): Definition[] {
  const seen = new Map<string, string>();
  const defs: Definition[] = [];
  for (const file of definitionFiles(dir, read)) {
    const where = named(dir, file);
    const text = readDefinitionFile(file);
    let value: unknown;
    try {
      // Without the line and column in messages, parsing is a quarter faster (10,000 files: seconds); a file
      // that fails is parsed again for the message that says where.
      value = parse(text, { prettyErrors: false });
    } catch {
      try {
        parse(text);
      } catch (e) {
        throw new UsageError(`${where} is not valid YAML: ${firstLine(e)}`);
      }
    }
    const def = parseDefinition(value, where);
    const key = definitionKey(def);
    const other = seen.get(key);
    if (other) throw new UsageError(`${where} and ${other} both define ${definitionLabel(def)}`);
    seen.set(key, where);
    defs.push(def);
  }
  return defs;
}

/**
 * The regular files under `dir` that hold a definition where `pull` writes it: what `pull --prune` may remove.
 * A file that is no definition, sits elsewhere (a layout of the user's), or is a link (or lies in a linked
 * folder) is not one of them: dlake removes only what it wrote.
 */
export function pulledFiles(dir: string): { file: string; def: Definition }[] {
  const out: { file: string; def: Definition }[] = [];
  const folders = [dir];
  while (folders.length) {
    const folder = folders.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch (e) {
      if (folder === dir && (e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw readError(`the folder ${folder}`, e);
    }
    for (const entry of entries) {
      const file = join(folder, entry.name);
      if (entry.isDirectory()) folders.push(file);
      if (!entry.isFile() || !DEFINITION_NAME.test(entry.name)) continue;
      let def: Definition;
      try {
        def = parseDefinition(parse(readDefinitionFile(file)), file);
      } catch {
        continue;
      }
      if (fileFor(dir, def) === file) out.push({ file, def });
    }
  }
  return out.sort((a, b) => (a.file < b.file ? -1 : 1));
}

/** A failure the user fixes in the folder (exit 2): something of theirs is where pull would write. */
const IN_THE_WAY = new Set(['EISDIR', 'ENOTDIR', 'EEXIST', 'ELOOP']);

/**
 * The error for a local failure of a pull, saying what was and was not written: exit 9 for the file system's
 * refusals (a full disk, a name too long, permission), exit 2 for what is in the way.
 */
function pullError(dir: string, file: string, e: unknown, outcome: string, verb = 'write'): DlakeError {
  if (e instanceof UsageError || e instanceof LocalIOError) return e;
  const message = `cannot ${verb} ${file}: ${describeFsError(e)}`;
  const code = (e as NodeJS.ErrnoException).code ?? '';
  const options = { cause: e, hint: outcome || `nothing was written: ${dir} is as it was` };
  return IN_THE_WAY.has(code) ? new UsageError(message, options) : new LocalIOError(message, options);
}

/**
 * What lies at each target of a pull, checked before anything is written: every folder on the way is a real
 * folder (not a link, not a file), and the file itself is absent or a regular file (not a link, a folder or a
 * FIFO). Returns the targets that exist (whose previous content the pull must be able to restore).
 */
function checkTargets(dir: string, files: readonly string[]): Set<string> {
  const top = resolve(dir);
  const known = new Map<string, 'folder' | 'absent'>();
  const existing = new Set<string>();
  const kindOfEntry = (path: string, isLast: boolean): 'folder' | 'file' | 'absent' => {
    const cached = known.get(path);
    if (cached) return cached;
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw pullError(dir, path, e, '');
      known.set(path, 'absent');
      return 'absent';
    }
    const what = named(dir, path);
    if (stats.isSymbolicLink()) {
      throw new UsageError(`${what} is a symbolic link: pull writes nothing through a link`, {
        hint: `nothing was written: remove the link from ${dir}, or pull into another folder`,
      });
    }
    if (isLast) {
      if (stats.isDirectory()) {
        throw new UsageError(`cannot write ${path}: it is a folder, not a file`, {
          hint: `nothing was written: ${dir} is as it was`,
        });
      }
      if (!stats.isFile()) {
        throw new UsageError(
          `${what} is not a regular file (a FIFO, a socket or a device): pull replaces only files`,
          {
            hint: `nothing was written: ${dir} is as it was`,
          },
        );
      }
      return 'file';
    }
    if (!stats.isDirectory()) {
      throw new UsageError(`cannot write ${path}: ${what} is a file, where pull needs a folder`, {
        hint: `nothing was written: ${dir} is as it was`,
      });
    }
    known.set(path, 'folder');
    return 'folder';
  };
  for (const file of files) {
    const full = resolve(file);
    const rel = relative(top, full);
    if (!rel || rel.startsWith('..') || isAbsolute(rel)) {
      throw new UsageError(`${file} is outside ${dir}: pull writes only inside the folder it is given`);
    }
    const parts = rel.split(sep);
    let path = dir;
    for (let i = 0; i < parts.length; i++) {
      path = join(path, parts[i]!);
      const kind = kindOfEntry(path, i === parts.length - 1);
      if (kind === 'absent') break;
      if (kind === 'file') existing.add(file);
    }
  }
  return existing;
}

/**
 * Refuses a pull into `dir` that would write through a link, over a folder, or outside `dir` (exit 2), or whose
 * names the file system cannot hold (exit 9), before anything is read from the folder or written to it.
 */
export function checkPullTargets(dir: string, defs: readonly Pick<Definition, 'kind' | 'path'>[]): void {
  checkTargets(
    dir,
    defs.map((d) => fileFor(dir, d)),
  );
}

/** One change of a pull: a file written (`from` the staging folder) or removed (moved `to` it). */
type Step = { write: string; from: string; backup?: string } | { remove: string; to: string };

/**
 * Writes the definitions where pull puts them (layout.ts) and removes `stale` (pull --prune), all or nothing:
 * every file is first written in a staging folder that dlake creates inside `dir` (exclusively, as each file
 * in it), the folders missing are created, and only then is each renamed into place; a failure on the way
 * puts back what was changed. Files of the folder that dlake does not write or remove are not touched.
 */
export function writeDefinitions(
  dir: string,
  defs: readonly Definition[],
  stale: readonly string[] = [],
): { written: string[]; removed: string[] } {
  const targets = defs.map((def) => ({ def, file: fileFor(dir, def) }));
  const existing = checkTargets(
    dir,
    targets.map((t) => t.file),
  );
  let createdTop: string | undefined;
  try {
    createdTop = mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw pullError(dir, dir, e, '');
  }
  const undoTop = () => {
    if (createdTop) rmSync(createdTop, { recursive: true, force: true });
  };
  let staging: string;
  try {
    staging = mkdtempSync(join(dir, '.dlake-pull-'));
  } catch (e) {
    undoTop();
    throw pullError(dir, dir, e, '');
  }
  const createdFolders: string[] = [];
  const steps: Step[] = [];
  const done: Step[] = [];
  const undo = () => {
    const failedUndo: string[] = [];
    for (const step of done.reverse()) {
      try {
        if ('remove' in step) renameSync(step.to, step.remove);
        else if (step.backup) renameSync(step.backup, step.write);
        else unlinkSync(step.write);
      } catch {
        failedUndo.push('remove' in step ? step.remove : step.write);
      }
    }
    for (const folder of createdFolders.reverse()) {
      try {
        rmdirSync(folder);
      } catch {
        // Not empty: a file put back is in it (or someone else's); it stays.
      }
    }
    // What could not be put back keeps its previous content in the staging folder, which then stays.
    if (failedUndo.length === 0) {
      rmSync(staging, { recursive: true, force: true });
      undoTop();
    }
    return failedUndo;
  };
  let current = dir;
  let verb = 'write';
  try {
    // 1. Every file, in the staging folder: a full disk or a failing device stops here, the folder untouched.
    targets.forEach(({ def, file }, i) => {
      current = file;
      // The service's data, without a secret in force it echoed (output/secrets.ts's rule).
      const formatted = formatDefinition(def);
      const text = secretsInForce()?.redact(formatted) ?? formatted;
      // A file that already holds these bytes is left as it is (its time too: tools that watch it see no change).
      if (existing.has(file) && sameText(file, text)) return;
      const from = join(staging, `${i}.new`);
      writeFileSync(from, text, { flag: 'wx' });
      const step: Step = { write: file, from };
      if (existing.has(file)) {
        // The file it replaces stays restorable: a second name for it (or a copy where links are not allowed).
        step.backup = join(staging, `${i}.old`);
        try {
          linkSync(file, step.backup);
        } catch {
          copyFileSync(file, step.backup, constants.COPYFILE_EXCL);
        }
      }
      steps.push(step);
    });
    stale.forEach((file, i) => {
      steps.push({ remove: file, to: join(staging, `${i}.removed`) });
    });
    // 2. The folders missing, one by one (so that each one created is known, and removed on a failure).
    const folders = [...new Set(targets.map((t) => dirname(t.file)))].sort();
    for (const folder of folders) {
      const parts = relative(dir, folder).split(sep).filter(Boolean);
      for (let n = 1; n <= parts.length; n++) {
        const f = join(dir, ...parts.slice(0, n));
        current = f;
        try {
          mkdirSync(f);
          createdFolders.push(f);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        }
      }
    }
    // 3. Into place: each rename replaces a whole file at once.
    for (const step of steps) {
      current = 'remove' in step ? step.remove : step.write;
      verb = 'remove' in step ? 'remove' : 'write';
      if ('remove' in step) renameSync(step.remove, step.to);
      else renameSync(step.from, step.write);
      done.push(step);
    }
  } catch (e) {
    const notPutBack = undo();
    const outcome = notPutBack.length
      ? `not everything could be put back: ${notPutBack.join(', ')} (the previous files are in ${staging}); every other file is as it was`
      : '';
    throw pullError(dir, current, e, outcome, verb);
  }
  rmSync(staging, { recursive: true, force: true });
  removeEmptiedFolders(dir, stale);
  return { written: targets.map((t) => t.file), removed: [...stale] };
}

/** Whether the regular file `file` holds `text` (a file that cannot be read does not). */
function sameText(file: string, text: string): boolean {
  try {
    return readCheckedFile(file, { maxBytes: USER_FILE_MAX_BYTES }).toString('utf8') === text;
  } catch {
    return false;
  }
}

/** Each folder under `dir` that the removed files leave empty, deepest first (one of the user's stays). */
function removeEmptiedFolders(dir: string, removed: readonly string[]): void {
  const top = resolve(dir);
  const folders = new Set<string>();
  for (const file of removed) {
    for (let d = dirname(resolve(file)); d.startsWith(top + sep); d = dirname(d)) folders.add(d);
  }
  for (const folder of [...folders].sort((a, b) => b.length - a.length)) {
    try {
      if (readdirSync(folder).length === 0) rmdirSync(folder);
    } catch {
      // A folder that cannot be listed or removed stays; the files themselves are gone.
    }
  }
}
