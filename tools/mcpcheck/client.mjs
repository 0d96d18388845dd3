// A real MCP client (the TypeScript SDK) against a venue's /mcp: it
// connects over streamable HTTP, lists the tools, calls one, ends the
// session with DELETE and prints what it saw as JSON.
//
//   node client.mjs <url> <tool> '<arguments JSON>' [bearer token]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, tool, args = "{}", token] = process.argv.slice(2);
if (!url || !tool) {
  console.error("usage: node client.mjs <url> <tool> '<arguments JSON>' [bearer token]");
  process.exit(2);
}
const headers = token ? { Authorization: `Bearer ${token}` } : {};
const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
const client = new Client({ name: "venue-ts-client", version: "0.0.1" });
await client.connect(transport);
const { tools } = await client.listTools();
const result = await client.callTool({ name: tool, arguments: JSON.parse(args) });
const session = transport.sessionId;
await transport.terminateSession();
await client.close();
console.log(JSON.stringify({ server: client.getServerVersion(), session, tools: tools.map((t) => t.name), result }));
