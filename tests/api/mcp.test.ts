// Contract 1.3 "MCP server" with the official SDK client, on embedded defaults: SQLite and local files.
import { runMcpSuite } from "./mcp-suite";

runMcpSuite("embedded");
