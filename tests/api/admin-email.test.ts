// Invitations go out by email when SMTP_URL and MAIL_FROM are set: to a real SMTP server (smtp-server) on loopback.
// The message carries the key, the docs link and the quota; a refused or unreachable server leaves the key issued and
// the invitation in the answer, to send by hand.
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { SMTPServer } from "smtp-server";
import { type App, startApp } from "../helpers/app";
import { call } from "../helpers/http";
import { ADMIN_TOKEN } from "./admin-suite";

type Received = { from: string; to: string[]; raw: string };

/** The text of a single-part message: headers apart, quoted-printable undone. */
function readMessage(raw: string): { headers: string; body: string } {
  const split = raw.indexOf("\r\n\r\n");
  const headers = raw.slice(0, split);
  let body = raw.slice(split + 4);
  if (/content-transfer-encoding:\s*quoted-printable/i.test(headers)) {
    body = body
      .replace(/=\r\n/g, "")
      .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  }
  return { headers, body };
}

describe("invitation email", () => {
  const received: Received[] = [];
  let smtp: SMTPServer;
  let app: App;
  let ip = 10;

  const admin = (path: string, body?: unknown) =>
    call(app.url, path, {
      method: "POST",
      from: `127.0.70.${ip++}`,
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const signUp = (email: string) =>
    call(app.url, "/api/waitlist", {
      method: "POST",
      from: `127.0.70.${ip++}`,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email }),
    });
  const idOf = async (email: string) => {
    const res = await call(app.url, `/api/admin/waitlist?q=${encodeURIComponent(email)}`, {
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    return res.json.entries[0].id as string;
  };

  before(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS", "AUTH"],
      logger: false,
      onRcptTo(address, _session, callback) {
        if (address.address.startsWith("bounce")) {
          const err = Object.assign(new Error("No such mailbox"), { responseCode: 550 });
          return callback(err);
        }
        callback();
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString("utf8"),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", () => resolve()));
    const { port } = smtp.server.address() as AddressInfo;
    app = await startApp({
      name: "admin-email",
      env: {
        ADMIN_TOKEN,
        SMTP_URL: `smtp://127.0.0.1:${port}`,
        MAIL_FROM: "Darkroom <keys@darkroom.test>",
        PRO_REQUESTS_PER_DAY: "2500",
      },
    });
  });
  after(async () => {
    await app?.stop();
    await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
  });

  it("emails the key, the docs link and the quota on approval", async () => {
    await signUp("ada@example.com");
    const res = await admin(`/api/admin/waitlist/${await idOf("ada@example.com")}/approve`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.emailed, true);
    assert.equal(res.json.invitation, null, "nothing to send by hand");
    const mail = received.at(-1);
    assert.ok(mail, "the SMTP server got a message");
    assert.equal(mail.from, "keys@darkroom.test");
    assert.deepEqual(mail.to, ["ada@example.com"]);
    const { headers, body } = readMessage(mail.raw);
    assert.match(headers, /^Subject: Your Darkroom Pro API key$/m);
    assert.match(headers, /^From: Darkroom <keys@darkroom\.test>$/m);
    assert.ok(body.includes(res.json.key), "the message carries the key");
    assert.ok(body.includes(`${app.url}/docs`), "and the docs link");
    assert.match(body, /2,500 requests a day/);
    assert.ok(!body.includes(res.json.webhook_secret), "the signing secret stays out of email");
  });

  it("emails a key created for an email in the console too", async () => {
    const before = received.length;
    const res = await admin("/api/admin/keys", { label: "partner", email: "bo@example.com", daily_limit: 40 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.emailed, true);
    assert.equal(received.length, before + 1);
    const { body } = readMessage(received[before].raw);
    assert.ok(body.includes(res.json.key));
    assert.match(body, /\b40 requests a day/);
  });

  it("a refused recipient leaves the key issued and the invitation in the answer", async () => {
    await signUp("bounce@example.com");
    const res = await admin(`/api/admin/waitlist/${await idOf("bounce@example.com")}/approve`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.emailed, false);
    assert.match(res.json.email_error, /send it by hand/);
    assert.ok(res.json.invitation.text.includes(res.json.key));
    const works = await call(app.url, "/api/status", { headers: { Authorization: `Bearer ${res.json.key}` } });
    assert.equal(works.json.plan, "pro");
    assert.ok(!app.logs().includes(res.json.key), "the key never reaches the logs");
  });

  it("an unreachable mail server does not hold the approval", async () => {
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    await signUp("late@example.com");
    const started = Date.now();
    const res = await admin(`/api/admin/waitlist/${await idOf("late@example.com")}/approve`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.emailed, false);
    assert.ok(res.json.invitation.text.includes(res.json.key));
    assert.ok(Date.now() - started < 15_000);
  });
});
