// The operators' console API on Upstash Redis (a real redis-server behind the REST bridge) and Vercel Blob.
import { runAdminSuite } from "./admin-suite";

runAdminSuite("upstash");
