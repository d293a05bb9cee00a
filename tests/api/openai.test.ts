// The OpenAI-compatible API (contract 1.2, /v1) with the real clients, on embedded defaults: SQLite and local files.
import { runOpenAISuite } from "./openai-suite";

runOpenAISuite("embedded");
