// /admin while ADMIN_TOKEN is unset: what turns the console on.
import { CodeBlock } from "@/components/docs/code-block";
import { panel } from "@/components/ui/styles";

export function ConsoleDisabled() {
  return (
    <div className="mx-auto max-w-2xl px-3 py-8 sm:px-6 sm:py-12">
      <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Operators&apos; console</h1>
      <div className={`${panel} mt-6 space-y-4 p-5 sm:p-6`} data-testid="console-disabled">
        <p>
          The console is off. To turn it on, set <code className="font-mono">ADMIN_TOKEN</code> to a secret of at least
          32 characters and restart the server, then sign in here with it.
        </p>
        <CodeBlock label="Turn the console on" code={'ADMIN_TOKEN="$(openssl rand -hex 32)" npm start'} />
        <p className="text-sm text-stone-700 dark:text-stone-300">
          With <code className="font-mono">SMTP_URL</code> and <code className="font-mono">MAIL_FROM</code> set too,
          approving a waitlist signup emails the new key; without them the console shows a message to send by hand.
        </p>
      </div>
    </div>
  );
}
