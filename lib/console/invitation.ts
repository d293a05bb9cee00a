// The invitation that carries a new Pro key: emailed with nodemailer when SMTP_URL and MAIL_FROM are set, else shown
// in the console ready to send by hand. It holds the key, the docs link and the quota.
import nodemailer from "nodemailer";
import type { Config } from "@/lib/config";
import { describeError, log } from "@/lib/log";

export type Invitation = { to: string; subject: string; text: string };

export function buildInvitation(opts: { to: string; key: string; dailyLimit: number; appUrl: string }): Invitation {
  const { to, key, dailyLimit, appUrl } = opts;
  const text = `Hello,

Your Darkroom Pro API key is ready:

    ${key}

It allows ${dailyLimit.toLocaleString("en-US")} requests a day, generations and enhancements together; the count resets at 00:00 UTC.
Send it as a bearer token, for example:

    curl -X POST ${appUrl}/api/generate \\
      -H "Authorization: Bearer $DARKROOM_API_KEY" \\
      -H "Content-Type: application/json" \\
      -d '{"prompt":"a lighthouse on a cliff at sunset"}'

API reference: ${appUrl}/docs
Your usage: ${appUrl}/account

Keep the key secret: it is shown only this once and stored only as a hash. If it leaks, reply and we will revoke it.
`;
  return { to, subject: "Your Darkroom Pro API key", text };
}

type Mail = NonNullable<Config["mail"]>;

export type Mailer = {
  /** Sends an invitation; false (logged, never thrown) when the server refused it or could not be reached. */
  send(invitation: Invitation): Promise<{ sent: boolean; error?: string }>;
};

/** The process's mail transport (the composition root holds one); it connects on the first send. */
export function createMailer(mail: Mail): Mailer {
  const transport = nodemailer.createTransport({
    url: mail.smtpUrl,
    // An approval waits for the send; a server that does not answer must not hold it for minutes.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return { send: (invitation) => sendInvitation(transport, mail, invitation) };
}

async function sendInvitation(
  transport: ReturnType<typeof nodemailer.createTransport>,
  mail: Mail,
  invitation: Invitation,
): Promise<{ sent: boolean; error?: string }> {
  try {
    await transport.sendMail({
      from: mail.from,
      to: invitation.to,
      subject: invitation.subject,
      text: invitation.text,
    });
    return { sent: true };
  } catch (err) {
    // nodemailer's messages name the server, never the message; the key stays out of the log either way.
    log.warn("invitation email not sent", describeError(err));
    return { sent: false, error: "The mail server did not accept the invitation; send it by hand." };
  }
}
