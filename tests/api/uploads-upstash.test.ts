// Slow and hostile clients on Upstash Redis and Vercel Blob.
import { runUploadsSuite } from "./uploads-suite";

runUploadsSuite("upstash");
