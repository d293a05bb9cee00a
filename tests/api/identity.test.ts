// Identity and global free caps on the embedded store (SQLite shared by two instances).
import { runIdentitySuite } from "./identity-suite";

runIdentitySuite("embedded");
