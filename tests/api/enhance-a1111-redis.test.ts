// a1111:<upscaler> enhance routes (contract 1.3) against the AUTOMATIC1111 fake, on a real redis-server over REDIS_URL, and Blob.
import { runEnhanceA1111Suite } from "./enhance-a1111-suite";

runEnhanceA1111Suite("redis");
