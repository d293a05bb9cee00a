// Slow and hostile clients on your own Redis over TCP (REDIS_URL, a real redis-server) and Vercel Blob.
import { runUploadsSuite } from "./uploads-suite";

runUploadsSuite("redis");
