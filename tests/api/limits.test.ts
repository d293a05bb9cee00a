// Operator limits and restarts on embedded defaults.
import { runLimitsSuite } from "./limits-suite";

runLimitsSuite("embedded");
