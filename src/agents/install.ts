// What `dlake agents install | uninstall | list` change, planned before anything is written (docs/agents.md
// "Installing into agent hosts"): per host, its MCP entry for `dlake mcp` and its skill. A plan is shown as it is
// with --dry-run; otherwise written, each file atomically (a temporary file beside it, then renamed), and recorded
// in dlake's own record of what it wrote (agents.json in the config folder), so that uninstall removes exactly
// that and a user's own entry is never taken for dlake's. Nothing here touches the network.
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { LocalIOError, UsageError } from '../errors.js';
import { readTextFile } from '../util/files.js';
import { ConfigTextError, isEmptyConfig, readEntry, removeEntry, setEntry } from './config-text.js';
import {
  type Format,
  HOSTS,
  type HostId,
  type McpFile,
  type Place,
  type Scope,
  type Server,
} from './hosts.js';

/** One thing dlake wrote into a host's files, as agents.json keeps it. */
interface Written {
  host: HostId;
  scope: Scope;
  file: string;
  /** An MCP entry (its key and the value written) or a skill file (the hash of what was written). */
  kind: 'mcp' | 'skill';
  format?: Format;
  key?: string[];
  value?: unknown;
  sha256?: string;
  /** dlake created the file, or the entry's parent object (`mcpServers`): uninstall removes them if left empty. */
  createdFile?: boolean;
  createdParent?: boolean;
}

export interface AgentsRecord {
  version: 1;
  written: Written[];
}

type Action = 'add' | 'update' | 'unchanged' | 'remove' | 'gone' | 'skip';

/** One change of a plan. `conflict`: a user's own entry or file in the way (exit 2 unless --force). */
export interface Change {
  host: HostId;
  scope: Scope;
  kind: 'mcp' | 'skill';
  file: string;
  action: Action;
  conflict?: string;
  note?: string;
  /** The file's new text (undefined: delete it). */
  text?: string;
  /** What the record gains or loses when the change is written. */
  record?: Written;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Text files a host keeps are small; one larger than this is not a configuration dlake should rewrite. */
const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

function readText(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  return readTextFile(file, 'agent host file', MAX_CONFIG_BYTES);
}

/** agents.json: what dlake wrote, by host, scope and file. */
export function loadRecord(dir: string): AgentsRecord {
  const text = readText(join(dir, 'agents.json'));
  if (text === undefined) return { version: 1, written: [] };
  try {
    const r = JSON.parse(text) as AgentsRecord;
    if (r.version === 1 && Array.isArray(r.written)) return r;
  } catch {}
  throw new UsageError(`${join(dir, 'agents.json')} is not a record dlake can read`, {
    hint: 'it lists what dlake agents install wrote; move it away to start afresh',
  });
}

const sameRecord = (a: Written, b: Written) =>
  a.host === b.host && a.scope === b.scope && a.file === b.file && a.kind === b.kind;

/** How a failed edit is said: the file and why, exit 2 (nothing is written). */
function cannotEdit(file: string, err: unknown): never {
  if (err instanceof ConfigTextError)
    throw new UsageError(`${file}: ${err.message}; dlake leaves it as it is`, {
      hint: 'fix the file, or add the entry by hand (docs/agents.md shows it for each host)',
    });
  throw err;
}

/** The changes that install `server` (and the skill `skill`) into `hosts` at `scope`. */
export async function planInstall(
  hosts: HostId[],
  scope: Scope,
  place: Place,
  server: Server,
  skill: string,
  record: AgentsRecord,
  force: boolean,
): Promise<Change[]> {
  const changes: Change[] = [];
  for (const id of hosts) {
    const host = HOSTS[id];
    const mcp = host.mcp(scope, place);
    if (mcp) changes.push(await planEntry(id, scope, mcp, host.entry(server), record, force));
    else
      changes.push({
        host: id,
        scope,
        kind: 'mcp',
        file: '',
        action: 'skip',
        note: `${host.name} keeps its servers in the user's configuration only: use --scope user`,
      });
    // Hosts that read the same skills folder (VS Code and Copilot CLI) share one file, written once.
    changes.push(planSkill(id, scope, join(host.skill(scope, place), 'SKILL.md'), skill, record, force));
  }
  return changes;
}

async function planEntry(
  id: HostId,
  scope: Scope,
  mcp: McpFile,
  value: Record<string, unknown>,
  record: AgentsRecord,
  force: boolean,
): Promise<Change> {
  const base = { host: id, scope, kind: 'mcp' as const, file: mcp.file };
  const text = readText(mcp.file);
  try {
    const existing = text === undefined ? undefined : await readEntry(text, mcp.format, mcp.key);
    const ours = record.written.find(
      (w) => sameRecord(w, { ...base }) && isDeepStrictEqual(w.value, existing),
    );
    const parent = text === undefined ? undefined : await readEntry(text, mcp.format, mcp.key.slice(0, -1));
    const written: Written = {
      ...base,
      format: mcp.format,
      key: mcp.key,
      value,
      createdFile: ours ? ours.createdFile : text === undefined,
      createdParent: ours ? ours.createdParent : parent === undefined,
    };
    if (existing !== undefined && isDeepStrictEqual(existing, value))
      return { ...base, action: 'unchanged', ...(ours ? { record: written } : {}) };
    const conflict =
      existing !== undefined && !ours
        ? `${mcp.file} already has an entry "${mcp.key.at(-1)}" that dlake did not write`
        : undefined;
    if (conflict && !force) return { ...base, action: 'update', conflict };
    return {
      ...base,
      action: existing === undefined ? 'add' : 'update',
      text: await setEntry(text ?? '', mcp.format, mcp.key, value),
      record: written,
    };
  } catch (err) {
    return cannotEdit(mcp.file, err);
  }
}

function planSkill(
  id: HostId,
  scope: Scope,
  file: string,
  skill: string,
  record: AgentsRecord,
  force: boolean,
): Change {
  const base = { host: id, scope, kind: 'skill' as const, file };
  const text = readText(file);
  const written: Written = { ...base, sha256: sha256(skill), createdFile: true };
  if (text === skill) return { ...base, action: 'unchanged', record: written };
  const ours = text !== undefined && record.written.some((w) => w.file === file && w.sha256 === sha256(text));
  const conflict = text !== undefined && !ours ? `${file} exists and dlake did not write it` : undefined;
  if (conflict && !force) return { ...base, action: 'update', conflict };
  return { ...base, action: text === undefined ? 'add' : 'update', text: skill, record: written };
}

/** The changes that remove what dlake wrote for `hosts` at `scope`, and only that. */
export async function planUninstall(
  hosts: HostId[],
  scope: Scope,
  record: AgentsRecord,
  force: boolean,
): Promise<Change[]> {
  const changes: Change[] = [];
  for (const w of record.written) {
    if (w.scope !== scope || !hosts.includes(w.host)) continue;
    const base = { host: w.host, scope, kind: w.kind, file: w.file, record: w };
    const text = readText(w.file);
    if (w.kind === 'skill') {
      // A skill file another host still uses stays until the last of them is uninstalled.
      const shared = record.written.some(
        (o) => o.file === w.file && !hosts.includes(o.host) && o.scope === scope,
      );
      if (text === undefined || shared)
        changes.push({
          ...base,
          action: text === undefined ? 'gone' : 'skip',
          ...(shared ? { note: 'still used by another host' } : {}),
        });
      else if (sha256(text) !== w.sha256 && !force)
        changes.push({ ...base, action: 'remove', conflict: `${w.file} was changed since dlake wrote it` });
      else changes.push({ ...base, action: 'remove', text: undefined });
      continue;
    }
    const fmt = w.format ?? 'json';
    try {
      const existing = text === undefined ? undefined : await readEntry(text, fmt, w.key!);
      if (existing === undefined) {
        changes.push({ ...base, action: 'gone' });
        continue;
      }
      if (!isDeepStrictEqual(existing, w.value) && !force) {
        changes.push({
          ...base,
          action: 'remove',
          conflict: `the "${w.key!.at(-1)}" entry of ${w.file} was changed since dlake wrote it`,
        });
        continue;
      }
      const left = await removeEntry(text!, fmt, w.key!, w.createdParent === true);
      const drop = w.createdFile === true && (await isEmptyConfig(left, fmt));
      changes.push({ ...base, action: 'remove', ...(drop ? {} : { text: left }) });
    } catch (err) {
      cannotEdit(w.file, err);
    }
  }
  return changes;
}

/** Writes `text` to `file` atomically: a temporary file beside it, then a rename; an existing file keeps its mode. */
function writeAtomic(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0o600;
  const temp = join(dirname(file), `.${randomBytes(6).toString('hex')}.dlake-tmp`);
  try {
    writeFileSync(temp, text, { mode, flag: 'wx' });
    chmodSync(temp, mode);
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw new LocalIOError(`${file}: could not be written (${(err as Error).message})`);
  }
}

/** Writes the changes that change something, then the record of what dlake wrote (`dir`/agents.json). */
export function applyChanges(changes: Change[], record: AgentsRecord, dir: string, uninstall: boolean): void {
  const done = new Set<string>();
  for (const c of changes) {
    if (c.action === 'add' || c.action === 'update' || c.action === 'remove') {
      if (done.has(`${c.kind}:${c.file}`)) continue;
      done.add(`${c.kind}:${c.file}`);
      if (c.text !== undefined) writeAtomic(c.file, c.text);
      else if (c.action === 'remove') {
        rmSync(c.file, { force: true });
        // The skill's own folder goes with its file when nothing else is in it.
        if (c.kind === 'skill' && existsSync(dirname(c.file)) && readdirSync(dirname(c.file)).length === 0)
          rmdirSync(dirname(c.file));
      }
    }
  }
  // Uninstalled (a shared skill kept for another host included), or gone already: out of the record;
  // installed: in it, once. The record is rewritten only when it changed.
  const before = JSON.stringify(record.written);
  for (const c of changes) {
    if (!c.record || c.conflict) continue;
    record.written = record.written.filter((w) => !sameRecord(w, c.record!));
    if (!uninstall) record.written.push(c.record);
  }
  if (JSON.stringify(record.written) !== before)
    writeAtomic(join(dir, 'agents.json'), `${JSON.stringify(record, null, 2)}\n`);
}
