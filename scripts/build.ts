// `npm run build`: build the app now (the server builds on its own when sources changed).
import path from "node:path";
import { ensureBuild } from "../lib/ops/build";

ensureBuild(path.resolve(__dirname, ".."), { force: process.argv.includes("--force") });
