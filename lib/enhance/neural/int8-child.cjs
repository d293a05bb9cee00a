// Child-process entry that makes one int8 model (make-int8.ts), loaded from disk like worker.cjs: registers tsx first.
"use strict";
require("tsx/cjs/api").register();
require("./make-int8.ts");
