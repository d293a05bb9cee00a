// The whole contract again on your own Redis over TCP (REDIS_URL, a real redis-server) and Vercel Blob.
import { runContractSuite } from "./contract-suite";

runContractSuite("redis");
