// The operators' console API on Redis over TCP (REDIS_URL, a real redis-server) and Vercel Blob.
import { runAdminSuite } from "./admin-suite";

runAdminSuite("redis");
