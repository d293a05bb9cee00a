// The OpenAI-compatible API (contract 1.2, /v1) with the real clients, on Redis through the Upstash bridge, and Blob.
import { runOpenAISuite } from "./openai-suite";

runOpenAISuite("upstash");
