// Domain errors are told apart by kind, not by class identity: the services are built in server.ts's module graph and
// their errors are caught in Next's bundle, which holds another copy of lib/errors.ts.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { it } from "node:test";
import * as here from "@/lib/errors";

async function anotherCopy(): Promise<typeof here> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "errors-copy-"));
  const file = path.join(dir, "errors.ts");
  fs.copyFileSync(path.resolve(__dirname, "../../lib/errors.ts"), file);
  return import(file);
}

it("recognises an error thrown by another copy of the module as its own kind, and only that kind", async () => {
  const there = await anotherCopy();
  assert.notEqual(there.StoreUnavailable, here.StoreUnavailable, "the copy is a separate module");
  const err = new there.StoreUnavailable("redis timed out");
  assert.ok(err instanceof here.StoreUnavailable);
  assert.ok(err instanceof here.DomainError);
  assert.ok(err instanceof Error);
  assert.equal(err instanceof here.StorageUnavailable, false);
  assert.equal(err instanceof here.QueueFull, false);
  assert.equal(err.name, "StoreUnavailable");
  assert.ok(new there.ChainExhausted(true, 5) instanceof here.ChainExhausted);
  assert.equal(new here.NotFound() instanceof there.Conflict, false);
});

it("does not take plain errors or look-alike objects for domain errors", () => {
  assert.equal(new Error("x") instanceof here.DomainError, false);
  assert.equal({ name: "StoreUnavailable" } instanceof here.StoreUnavailable, false);
  assert.equal((null as unknown) instanceof here.DomainError, false);
});
