// Contract 1.3 "MCP server" with the official SDK client, on a real redis-server over REDIS_URL, and Blob.
import { runMcpSuite } from "./mcp-suite";

runMcpSuite("redis");
