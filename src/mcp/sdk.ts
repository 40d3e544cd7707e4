// What dlake uses of the Model Context Protocol SDK, in one module: the build bundles it into a vendor file
// of its own (dist/vendor/mcp-sdk.cjs), loaded by `dlake mcp` alone (scripts/build.mjs).
export { Server } from '@modelcontextprotocol/sdk/server/index.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
export { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
