// The edits `dlake agents install` makes to a host's configuration file, on real files from public repositories
// (test/fixtures/agents/README.md names each one's origin): dlake's entry added, replaced and removed, the rest of
// the file kept as it was, comments included, and a file that cannot be edited safely left alone.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigTextError, readEntry, removeEntry, setEntry } from '../../src/agents/config-text.js';
import { type Format, HOSTS, type HostId } from '../../src/agents/hosts.js';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/agents');
const fixture = (name: string) => readFileSync(resolve(FIXTURES, name), 'utf8');
const place = { home: '/home/u', cwd: '/work/p', env: {}, platform: 'linux' as const };
const SERVER = { command: 'dlake', args: ['mcp', '--profile', 'prod'], env: {} };

/** Each host's real file, the scope it was found at, and what its own parsed content must keep. */
const REAL: [HostId, string, 'user' | 'project'][] = [
  ['claude-code', 'claude-code.mcp.json', 'project'],
  ['codex', 'codex.config.toml', 'user'],
  ['codex', 'codex-comments.config.toml', 'user'],
  ['cursor', 'cursor.mcp.json', 'project'],
  ['vscode', 'vscode.mcp.json', 'project'],
  ['gemini', 'gemini.settings.json', 'user'],
  ['goose', 'goose.config.yaml', 'user'],
  ['copilot', 'copilot.mcp-config.json', 'user'],
];

describe("dlake's entry in each host's real configuration file", () => {
  it.each(REAL)('%s (%s): added, replaced and removed, everything else kept', async (id, name, scope) => {
    const host = HOSTS[id];
    const mcp = host.mcp(scope, place)!;
    const { format, key } = mcp;
    const text = fixture(name);
    const entry = host.entry(SERVER);
    const before = await readEntry(text, format, key.slice(0, -1));
    expect(await readEntry(text, format, key)).toBeUndefined();

    const added = await setEntry(text, format, key, entry);
    expect(await readEntry(added, format, key)).toEqual(entry);
    // Every other server (or extension) the user had is still there, as it was.
    expect(await readEntry(added, format, key.slice(0, -1))).toEqual({
      ...(before as object),
      [key.at(-1)!]: entry,
    });
    // Nothing before dlake's entry moved: the file's own text is a prefix, or kept around the insertion.
    for (const comment of text.match(/(?:^|\n)\s*(?:\/\/|#).*/g) ?? [])
      expect(added).toContain(comment.trim());

    const replaced = await setEntry(added, format, key, host.entry({ ...SERVER, args: ['mcp'] }));
    expect((await readEntry(replaced, format, key)) as { args?: string[] }).toMatchObject(
      format === 'yaml' ? { args: ['mcp'] } : { args: ['mcp'] },
    );
    const removed = await removeEntry(replaced, format, key, false);
    expect(await readEntry(removed, format, key.slice(0, -1))).toEqual(before);
    // Byte for byte where the file is laid out consistently (the Cursor one mixes tabs and spaces: JSON
    // re-indents the closing brace next to dlake's entry).
    if (name !== 'cursor.mcp.json') expect(removed).toBe(text);
  });

  it('a new file holds the entry alone; removing it with the parent dlake made leaves an empty object', async () => {
    for (const [format, key] of [
      ['json', ['mcpServers', 'dlake']],
      ['toml', ['mcp_servers', 'dlake']],
      ['yaml', ['extensions', 'dlake']],
    ] as [Format, string[]][]) {
      const text = await setEntry('', format, key, { command: 'dlake', args: ['mcp'] });
      expect(await readEntry(text, format, key)).toEqual({ command: 'dlake', args: ['mcp'] });
      expect(await readEntry(await removeEntry(text, format, key, true), format, [key[0]!])).toBeUndefined();
    }
    expect(await setEntry('', 'toml', ['mcp_servers', 'dlake'], { command: 'dlake', args: ['mcp'] })).toBe(
      '[mcp_servers.dlake]\ncommand = "dlake"\nargs = [ "mcp" ]\n',
    );
  });

  it('refuses a file it cannot read or edit safely, and says why', async () => {
    await expect(readEntry('{"mcpServers": ', 'json', ['mcpServers'])).rejects.toThrow(ConfigTextError);
    await expect(readEntry('a = [', 'toml', ['a'])).rejects.toThrow(/^not TOML/);
    // A TOML inline table cannot take a table of dlake's beside it: the check after the edit catches it.
    await expect(
      setEntry('mcp_servers = { other = { command = "x" } }\n', 'toml', ['mcp_servers', 'dlake'], {
        command: 'dlake',
      }),
    ).rejects.toThrow(ConfigTextError);
    // An entry written with dotted keys inside [mcp_servers] is not a table dlake can cut out.
    await expect(
      removeEntry('[mcp_servers]\ndlake.command = "dlake"\n', 'toml', ['mcp_servers', 'dlake'], false),
    ).rejects.toThrow(/not a table of its own/);
  });
});
