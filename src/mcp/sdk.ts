// What dlake uses of the Model Context Protocol SDK, in one module: the build bundles it into a vendor file
// of its own (dist/vendor/mcp-sdk.cjs), loaded by `dlake mcp` alone (scripts/build.mjs).
import { config } from 'zod/v4/core';

export { Server } from '@modelcontextprotocol/sdk/server/index.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
export {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
// zod's JSON Schema writer, for tools/list: the SDK's copy of zod has it anyway; taking it from here keeps it out
// of the bundle every command loads.
export { toJSONSchema } from 'zod/v4/core';

// The SDK's copy of zod checks each message once or twice in a session: compiling a parser for each object
// schema (zod's JIT, `new Function`) costs more than it saves there (docs/benchmarks.md "Start-up").
config({ jitless: true });
