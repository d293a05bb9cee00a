// Operator limits and restarts on Upstash Redis and Vercel Blob.
import { runLimitsSuite } from "./limits-suite";

runLimitsSuite("upstash");
