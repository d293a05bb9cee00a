// Each provider's host policy: its own hosts over HTTPS, the key only on its API hosts, the *_BASE_URL origin as set.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createHostPolicy } from "@/lib/engines/providers/hosts";
import type { ProviderName } from "@/lib/engines/routes";

type Expect = "key" | "no-key" | "refused";

function verdictOf(provider: ProviderName, url: string, baseUrl?: string): Expect {
  const v = createHostPolicy(provider, baseUrl)(new URL(url));
  if (!v.allowed) return "refused";
  assert.equal(v.anyAddress, false, `${url}: only the configured origin may be on a private address`);
  return v.credentials ? "key" : "no-key";
}

function assertTable(provider: ProviderName, table: [string, Expect][]) {
  for (const [url, expected] of table) assert.equal(verdictOf(provider, url), expected, `${provider} ${url}`);
}

describe("default hosts", () => {
  it("BFL: the key goes to the global and regional API hosts, results come from delivery hosts", () => {
    assertTable("bfl", [
      ["https://api.bfl.ai/v1/flux-pro-1.1", "key"],
      ["https://api.us1.bfl.ai/v1/get_result?id=1", "key"],
      ["https://api.eu.bfl.ai/v1/get_result?id=1", "key"],
      ["https://API.EU2.BFL.AI./v1/get_result?id=1", "key"],
      ["https://delivery-eu1.bfl.ai/results/x/sample.jpeg?se=1&sig=2", "no-key"],
      ["https://delivery-us1.bfl.ai/results/x/sample.png", "no-key"],
      ["http://api.bfl.ai/v1/get_result", "refused"],
      ["https://api.bfl.ai:8443/v1/get_result", "refused"],
      ["https://api.x.y.bfl.ai/v1/get_result", "refused"],
      ["https://bfl.ai/x", "refused"],
      ["https://evilbfl.ai/x", "refused"],
      ["https://api.bfl.ai.evil.example/v1/get_result", "refused"],
      ["https://delivery-eu1.bfl.ai.evil.example/x.png", "refused"],
      ["https://169.254.169.254/latest/meta-data", "refused"],
    ]);
  });

  it("Replicate: the token goes to api.replicate.com only; outputs come from replicate.delivery", () => {
    assertTable("replicate", [
      ["https://api.replicate.com/v1/predictions/abc", "key"],
      ["https://replicate.delivery/pbxt/abc/out-0.png", "no-key"],
      ["https://pbxt.replicate.delivery/abc/out-0.png", "no-key"],
      ["https://replicate.com/x", "refused"],
      ["https://replicate.delivery.evil.example/x.png", "refused"],
      ["https://evilreplicate.delivery/x.png", "refused"],
    ]);
  });

  it("fal: the key goes to fal.run and queue.fal.run; images come from fal.media", () => {
    assertTable("fal", [
      ["https://fal.run/fal-ai/flux/schnell", "key"],
      ["https://queue.fal.run/fal-ai/flux/requests/1/status", "key"],
      ["https://v3.fal.media/files/penguin/x.png", "no-key"],
      ["https://fal.media/files/x.png", "no-key"],
      ["https://v3b.fal.media/files/x.png", "no-key"],
      ["https://storage.googleapis.com/x.png", "refused"],
      ["https://fal.run.evil.example/x", "refused"],
    ]);
  });

  it("Together, OpenAI and Stability: their API hosts only", () => {
    assertTable("together", [
      ["https://api.together.xyz/v1/images/generations", "key"],
      ["https://api.together.ai/imgproxy/abc/format:jpeg/xyz", "no-key"],
      ["https://together.xyz/x", "refused"],
    ]);
    assertTable("openai", [
      ["https://api.openai.com/v1/images/generations", "key"],
      ["https://oaidalleapiprodscus.blob.core.windows.net/x.png", "refused"],
    ]);
    assertTable("stability", [
      ["https://api.stability.ai/v1/generation/x/text-to-image", "key"],
      ["https://stability.ai/x", "refused"],
    ]);
  });
});

describe("a configured base URL", () => {
  it("adds exactly its origin, on any address and with the key", () => {
    const policy = createHostPolicy("openai", "http://127.0.0.1:8080/v1");
    assert.deepEqual(policy(new URL("http://127.0.0.1:8080/v1/images/generations")), {
      allowed: true,
      anyAddress: true,
      credentials: true,
    });
    for (const other of ["http://127.0.0.1:8081/v1", "https://127.0.0.1:8080/v1", "http://localhost:8080/v1"]) {
      assert.equal(policy(new URL(other)).allowed, false, other);
    }
  });

  it("keeps the provider's own hosts, under the same rules as without it", () => {
    assert.equal(verdictOf("bfl", "https://api.us1.bfl.ai/v1/get_result", "https://api.eu.bfl.ai/v1"), "key");
    assert.equal(verdictOf("bfl", "https://delivery-eu1.bfl.ai/x.png", "http://10.1.2.3:9000/v1"), "no-key");
    assert.equal(verdictOf("bfl", "http://10.1.2.3:9001/v1/get_result", "http://10.1.2.3:9000/v1"), "refused");
  });
});
