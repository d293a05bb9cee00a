// The server secret keys are hashed under: KEY_PEPPER, or one generated into DATA_DIR on first run.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

export function loadPepper(dataDir: string, configured: string | undefined): string {
  if (configured) return configured;
  const file = path.join(dataDir, "key-pepper");
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    // "wx" makes creation atomic: of several instances starting together exactly one writes it.
    fs.writeFileSync(file, crypto.randomBytes(32).toString("hex"), { flag: "wx", mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  for (let attempt = 0; ; attempt++) {
    const pepper = fs.readFileSync(file, "utf8").trim();
    if (pepper.length >= 32) return pepper;
    // Another instance created the file a moment ago and is still writing it.
    if (attempt > 50) throw new Error(`${file} is not a valid pepper; delete it or set KEY_PEPPER`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
}
