// @keepgraph/mcp: KeepGraph's use-cases as MCP tools, a profile resource and
// a context prompt, for stdio (`keepgraph mcp`) and streamable HTTP (`/mcp`).
export { TOOLS, type ToolDef, type ToolHints } from './tools.ts';
export { createMcpServer, toolError, type McpServerOptions } from './server.ts';
export { handleMcpHttp } from './http.ts';
export { remoteEngine } from './remote-engine.ts';
