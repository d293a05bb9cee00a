// The whole contract on embedded defaults: SQLite and local image files.
import { runContractSuite } from "./contract-suite";

runContractSuite("embedded");
