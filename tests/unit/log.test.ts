// Log redaction: whatever a caller passes, a written line carries no email, key or full client address.
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { formatLine, log, maskEmail, REDACTED, redactText, truncateIp } from "@/lib/log";

const KEY = `dk_live_${"Ab3_-x".repeat(7)}Z`;
const WHSEC = "whsec_c2VjcmV0IHNpZ25pbmcga2V5IGJ5dGVz+/==";
const when = new Date("2026-11-21T12:34:56.789Z");

function lineOf(msg: string, fields: Record<string, unknown>) {
  return JSON.parse(formatLine("info", msg, fields, when)) as Record<string, unknown>;
}

describe("log redaction", () => {
  it("truncates addresses to their network: IPv4 /24, IPv6 /48", () => {
    assert.equal(truncateIp("203.0.113.77"), "203.0.113.0/24");
    assert.equal(truncateIp("::ffff:198.51.100.9"), "198.51.100.0/24");
    assert.equal(truncateIp("2001:db8:abcd:12:1:2:3:4"), "2001:db8:abcd::/48");
    assert.equal(truncateIp("2001:0DB8:00ab::1"), "2001:db8:ab::/48");
    assert.equal(truncateIp("2001:db8::"), "2001:db8:0::/48");
    assert.equal(truncateIp("::1"), "::/48");
    assert.equal(truncateIp("not an ip"), REDACTED);
  });

  it("masks emails down to their first letter and domain", () => {
    assert.equal(maskEmail("ada.lovelace@example.com"), "a***@example.com");
    assert.equal(maskEmail("@nobody"), REDACTED);
  });

  it("redacts fields by name, whatever their spelling or nesting", () => {
    const line = lineOf("signup", {
      ip: "203.0.113.77",
      clientIp: "2001:db8:abcd:12::99",
      peer_ips: ["198.51.100.1", "198.51.100.2"],
      "x-forwarded-for": "192.0.2.44",
      email: "ada@example.com",
      user: { email_address: "bob@example.org", api_key: KEY, remote_address: "192.0.2.45" },
      key: KEY,
      authorization: `Bearer ${KEY}`,
      token: 12345,
      webhook_secret: { value: WHSEC },
      key_id: "key_0123456789ab",
      identity: "ip:203.0.113.77",
      request_id: "req_1",
    });
    assert.deepEqual(line, {
      time: "2026-11-21T12:34:56.789Z",
      level: "info",
      msg: "signup",
      ip: "203.0.113.0/24",
      clientIp: "2001:db8:abcd::/48",
      peer_ips: ["198.51.100.0/24", "198.51.100.0/24"],
      "x-forwarded-for": "192.0.2.0/24",
      email: "a***@example.com",
      user: { email_address: "b***@example.org", api_key: REDACTED, remote_address: "192.0.2.0/24" },
      key: REDACTED,
      authorization: REDACTED,
      token: REDACTED,
      webhook_secret: REDACTED,
      key_id: "key_0123456789ab",
      identity: "ip:203.0.113.0/24",
      request_id: "req_1",
    });
  });

  it("scans messages and free text for emails, keys, credentials and addresses", () => {
    const line = lineOf(`rejected ${KEY} from 203.0.113.77 for ada@example.com`, {
      error: `fetch to [2001:db8:abcd:12::1]:443 failed; Authorization: Bearer abc.def-ghi; secret ${WHSEC}`,
      stack: "Error: x\n    at f (/srv/app/node_modules/@vercel/blob/dist/index.cjs:10:5)",
    });
    assert.equal(line.msg, "rejected dk_live_[redacted] from 203.0.113.0/24 for a***@example.com");
    assert.equal(
      line.error,
      "fetch to [2001:db8:abcd::/48]:443 failed; Authorization: Bearer [redacted]; secret whsec_[redacted]",
    );
    assert.equal(line.stack, "Error: x\n    at f (/srv/app/node_modules/@vercel/blob/dist/index.cjs:10:5)");
  });

  it("removes the operator's configured secrets wherever they appear", () => {
    const env = {
      OPENAI_API_KEY: "sk-proj-abcdefghijklmnopqrstuvwxyz",
      KEY_PEPPER: "pepper-pepper-pepper-pepper-pepper!",
      MONKEY: "not-a-secret-value",
      FAL_KEY: "short",
    };
    const text =
      "401 from provider: Incorrect API key sk-proj-abcdefghijklmnopqrstuvwxyz (pepper-pepper-pepper-pepper-pepper!)";
    assert.equal(redactText(text, env), `401 from provider: Incorrect API key ${REDACTED} (${REDACTED})`);
    assert.equal(redactText("not-a-secret-value short", env), "not-a-secret-value short");
  });

  it("leaves times, versions, ids and ordinary numbers alone", () => {
    const text = "at 2026-11-21T12:34:56.789Z next 16.4.6 took 12.5 ms for 1376x768, id 3f0c:e1, ratio 16:9";
    assert.equal(redactText(text), text);
  });

  describe("the written line", () => {
    let lines: string[] = [];
    const saved = { log: console.log, error: console.error };
    beforeEach(() => {
      lines = [];
      console.log = (line: string) => lines.push(line);
      console.error = (line: string) => lines.push(line);
    });
    afterEach(() => Object.assign(console, saved));

    it("is one JSON line per call, redacted at every level", () => {
      log.info("joined", { email: "ada@example.com" });
      log.warn("bad key", { key: KEY, ip: "203.0.113.77" });
      log.error("boom", { error: "client 198.51.100.9 sent ada@example.com" });
      assert.equal(lines.length, 3);
      const all = lines.join("\n");
      for (const secret of ["ada@example.com", KEY, "203.0.113.77", "198.51.100.9"]) {
        assert.ok(!all.includes(secret), `${secret} leaked: ${all}`);
      }
      assert.deepEqual(
        lines.map((l) => JSON.parse(l).level),
        ["info", "warn", "error"],
      );
    });
  });
});
