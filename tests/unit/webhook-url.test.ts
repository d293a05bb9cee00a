// The request-time check of webhook_url, its contract error, and WEBHOOK_ALLOW_HOSTS as configuration.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError, parseConfig } from "@/lib/config";
import { InvalidWebhookUrl } from "@/lib/errors";
import { toApiError } from "@/lib/schemas/api-error";
import { checkWebhookUrl } from "@/lib/webhooks/url";

const refused = (url: string, allow: string[] = [], why?: RegExp) =>
  assert.throws(
    () => checkWebhookUrl(url, allow),
    (err: unknown) => err instanceof InvalidWebhookUrl && (!why || why.test(err.message)),
    url,
  );

describe("checkWebhookUrl", () => {
  it("accepts https URLs on names and public addresses", () => {
    for (const url of [
      "https://hooks.example.com/in",
      "https://hooks.example.com:8443/in?x=1#frag",
      "https://8.8.8.8/hook",
      "https://[2606:4700:4700::1111]/hook",
      "https://HOOKS.Example.COM./in",
    ]) {
      assert.equal(checkWebhookUrl(url, []).href, new URL(url).href);
    }
  });

  it("refuses what is not an absolute https URL", () => {
    for (const url of ["", "hooks.example.com/in", "/relative", "ftp://hooks.example.com/", "javascript:alert(1)"]) {
      refused(url);
    }
    refused("http://hooks.example.com/in", [], /https/);
    refused("HTTP://hooks.example.com/in", [], /https/);
    refused("ws://hooks.example.com/in");
  });

  it("refuses user info in the URL", () => {
    refused("https://user:pass@hooks.example.com/", [], /user name or password/);
    refused("https://user@hooks.example.com/", [], /user name or password/);
    refused("https://:pass@hooks.example.com/", [], /user name or password/);
  });

  it("refuses literal addresses that are not public, however they are written", () => {
    for (const url of [
      "https://127.0.0.1/",
      "https://127.1/",
      "https://2130706433/",
      "https://0x7f000001/",
      "https://0177.0.0.1/",
      "https://10.0.0.1/",
      "https://172.16.5.4/",
      "https://192.168.1.1/",
      "https://169.254.169.254/latest/meta-data/",
      "https://100.64.0.1/",
      "https://0.0.0.0/",
      "https://224.0.0.1/",
      "https://255.255.255.255/",
      "https://[::1]/",
      "https://[::]/",
      "https://[fe80::1]/",
      "https://[fd00::1]/",
      "https://[ff02::1]/",
      "https://[::ffff:127.0.0.1]/",
      "https://[::ffff:a00:1]/",
      "https://[64:ff9b::a9fe:a9fe]/",
    ]) {
      refused(url, [], /public address/);
    }
  });

  it("refuses localhost names, which are loopback by definition", () => {
    refused("https://localhost/", [], /loopback/);
    refused("https://LOCALHOST./", [], /loopback/);
    refused("https://hooks.localhost/", [], /loopback/);
  });

  it("lets allow-listed hosts use http and any address", () => {
    assert.equal(checkWebhookUrl("http://127.0.0.1:8080/in", ["127.0.0.1"]).port, "8080");
    assert.equal(checkWebhookUrl("https://127.0.0.1/in", ["127.0.0.1"]).hostname, "127.0.0.1");
    assert.equal(checkWebhookUrl("http://LocalHost:3000/in", ["localhost"]).hostname, "localhost");
    assert.equal(checkWebhookUrl("http://[::1]:3000/in", ["::1"]).hostname, "[::1]");
    assert.equal(checkWebhookUrl("http://receiver.internal/in", ["receiver.internal"]).protocol, "http:");
    // The list names hosts exactly: another host stays under the rules.
    refused("http://other.internal/in", ["receiver.internal"], /https/);
    refused("https://127.0.0.2/", ["127.0.0.1"], /public address/);
    // Allow-listing does not allow credentials.
    refused("http://u:p@127.0.0.1/", ["127.0.0.1"], /user name or password/);
  });

  it("refuses overlong URLs", () => {
    refused(`https://hooks.example.com/${"a".repeat(2100)}`, [], /at most 2048/);
  });

  it("maps to the contract's 400 invalid_webhook_url with the check's message", () => {
    let thrown: unknown;
    try {
      checkWebhookUrl("https://10.0.0.1/", []);
    } catch (err) {
      thrown = err;
    }
    const api = toApiError(thrown, "req_test");
    assert.equal(api.code, "invalid_webhook_url");
    assert.equal(api.status, 400);
    assert.equal(api.message, "webhook_url must point at a public address, not a private one.");
  });
});

describe("WEBHOOK_ALLOW_HOSTS", () => {
  it("is empty by default, and normalised when set", () => {
    assert.deepEqual(parseConfig({}).webhookAllowHosts, []);
    assert.deepEqual(
      parseConfig({ WEBHOOK_ALLOW_HOSTS: " LocalHost, 127.0.0.1 ,[::1],hooks.test.,, " }).webhookAllowHosts,
      ["localhost", "127.0.0.1", "::1", "hooks.test"],
    );
  });

  it("refuses ports, schemes and paths at start", () => {
    for (const value of ["localhost:8080", "http://localhost", "hooks.test/in", "a b"]) {
      assert.throws(() => parseConfig({ WEBHOOK_ALLOW_HOSTS: value }), ConfigError, value);
    }
  });
});
