// The whole contract again on the production backends: real Redis through the Upstash REST bridge, and Vercel Blob.
import { runContractSuite } from "./contract-suite";

runContractSuite("upstash");
