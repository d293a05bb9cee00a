// Signing as Standard Webhooks specifies, checked by the standardwebhooks package's own verifier.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { describe, it } from "node:test";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { newWebhookId, newWebhookSecret, signWebhook } from "@/lib/webhooks/sign";

const body = JSON.stringify({ type: "job.succeeded", timestamp: "2026-01-01T00:00:00.000Z", data: { id: "job_1" } });

describe("webhook signing", () => {
  it("makes secrets of whsec_ and 32 random bytes in base64", () => {
    const a = newWebhookSecret();
    const b = newWebhookSecret();
    assert.match(a, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(a.slice(6), "base64").length, 32);
    assert.notEqual(a, b);
  });

  it("makes ids the verifier accepts", () => {
    const id = newWebhookId();
    assert.match(id, /^msg_[0-9a-f]{32}$/);
    assert.notEqual(id, newWebhookId());
  });

  it("signs headers the standardwebhooks verifier accepts", () => {
    const secret = newWebhookSecret();
    const headers = signWebhook({ id: "msg_1", secret, body });
    assert.equal(headers["webhook-id"], "msg_1");
    assert.match(headers["webhook-timestamp"], /^\d{10}$/);
    assert.ok(Math.abs(Number(headers["webhook-timestamp"]) - Date.now() / 1000) < 5);
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  });

  it("is v1, base64 HMAC-SHA256 over id.timestamp.body under the decoded secret", () => {
    const secret = newWebhookSecret();
    const now = new Date("2026-03-04T05:06:07.890Z");
    const headers = signWebhook({ id: "msg_2", secret, body, now });
    assert.equal(headers["webhook-timestamp"], String(Math.floor(now.getTime() / 1000)));
    const key = Buffer.from(secret.slice("whsec_".length), "base64");
    const mac = crypto
      .createHmac("sha256", key)
      .update(`msg_2.${headers["webhook-timestamp"]}.${body}`)
      .digest("base64");
    assert.equal(headers["webhook-signature"], `v1,${mac}`);
  });

  it("fails verification for another body, id, secret or a stale timestamp", () => {
    const secret = newWebhookSecret();
    const headers = signWebhook({ id: "msg_3", secret, body });
    const refuses = (fn: () => unknown) => assert.throws(fn, WebhookVerificationError);
    refuses(() => new Webhook(secret).verify(`${body} `, headers));
    refuses(() => new Webhook(secret).verify(body, { ...headers, "webhook-id": "msg_4" }));
    refuses(() => new Webhook(newWebhookSecret()).verify(body, headers));
    const old = signWebhook({ id: "msg_3", secret, body, now: new Date(Date.now() - 10 * 60_000) });
    refuses(() => new Webhook(secret).verify(body, old));
  });
});
