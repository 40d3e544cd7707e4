// An MCP session with the built `dlake mcp`, through the official SDK's own client and stdio transport
// (it spawns bin/dlake.js as an agent host does), keeping everything the server wrote to standard error
// and every message it could not read on standard output.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN } from './dlake.js';

export interface McpSession {
  client: Client;
  transport: StdioClientTransport;
  /** What the server wrote to standard error so far. */
  stderr(): string;
  /** Errors of the transport: a line on standard output that is not JSON-RPC shows up here. */
  errors: Error[];
  /** A tool call's text and whether it is a tool error. */
  call(name: string, args?: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  structured(
    name: string,
    args?: Record<string, unknown>,
  ): Promise<{ note: string; result?: unknown; error?: string }>;
  /** A call's answer, as its structuredContent gives it (fails the test on a tool error). */
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect the answer's JSON freely
  json(name: string, args?: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

export async function startMcp(args: string[], env: Record<string, string>): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: { NO_COLOR: '1', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString('utf8');
  });
  const errors: Error[] = [];
  const client = new Client({ name: 'dlake-tests', version: '1.0.0' });
  client.onerror = (e) => errors.push(e);
  await client.connect(transport);
  const call = async (name: string, a: Record<string, unknown> = {}) => {
    const r = await client.callTool({ name, arguments: a });
    const content = r.content as { type: string; text: string }[];
    return { text: content.map((c) => c.text).join(''), isError: Boolean(r.isError) };
  };
  /** A call's structuredContent: `{note, result}`, or `{note, error}` for a tool error. */
  const structured = async (name: string, a: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: a })).structuredContent as {
      note: string;
      result?: unknown;
      error?: string;
    };
  return {
    client,
    transport,
    stderr: () => stderr,
    errors,
    call,
    structured,
    json: async (name, a) => {
      const r = await structured(name, a);
      if (r.error !== undefined) throw new Error(`${name} failed: ${r.error}\n--- stderr:\n${stderr}`);
      return r.result;
    },
    close: () => client.close(),
  };
}
