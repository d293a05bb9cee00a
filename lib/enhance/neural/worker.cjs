// Worker entry, loaded from disk at run time because Next bundles route code: registers tsx, then runs the TS worker.
"use strict";
require("tsx/cjs/api").register();
require("./sr-worker.ts");
