// Identity and global free caps on Upstash Redis, shared by two instances.
import { runIdentitySuite } from "./identity-suite";

runIdentitySuite("upstash");
