// The listen address: LISTEN_HOST, else HOSTNAME only when it is an address; a container id is never bound.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError, parseConfig } from "@/lib/config";

describe("listen address", () => {
  it("binds all interfaces when nothing is set", () => {
    assert.deepEqual(parseConfig({}).listen, {});
  });

  it("takes HOSTNAME when it is an IP address or localhost", () => {
    for (const hostname of ["127.0.0.1", "0.0.0.0", "::", "::1", "localhost", "LOCALHOST"]) {
      assert.deepEqual(parseConfig({ HOSTNAME: hostname }).listen, { host: hostname }, hostname);
    }
  });

  it("ignores a HOSTNAME that is a machine name, such as the container id Docker sets", () => {
    assert.deepEqual(parseConfig({ HOSTNAME: "3f2a9c1b7d4e" }).listen, { ignoredHostname: "3f2a9c1b7d4e" });
    assert.deepEqual(parseConfig({ HOSTNAME: "web-1.internal" }).listen, { ignoredHostname: "web-1.internal" });
  });

  it("prefers LISTEN_HOST, which may also be a name", () => {
    assert.deepEqual(parseConfig({ LISTEN_HOST: "::", HOSTNAME: "127.0.0.1" }).listen, { host: "::" });
    assert.deepEqual(parseConfig({ LISTEN_HOST: "127.0.0.1", HOSTNAME: "3f2a9c1b7d4e" }).listen, {
      host: "127.0.0.1",
    });
    assert.deepEqual(parseConfig({ LISTEN_HOST: "localhost" }).listen, { host: "localhost" });
  });

  it("refuses a LISTEN_HOST that is neither an address nor a host name", () => {
    for (const bad of ["http://0.0.0.0", "0.0.0.0:3000", "[::1]", "a b"]) {
      assert.throws(() => parseConfig({ LISTEN_HOST: bad }), ConfigError, bad);
    }
  });
});
