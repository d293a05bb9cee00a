// "Your usage": a Pro caller pastes their key and sees their account and daily use. The key lives only in this
// component's memory: never stored, never put in the address, gone on reload or "Forget key".
"use client";
import { type FormEvent, useState } from "react";
import { COLORS } from "@/components/charts/palette";
import { ShareBars } from "@/components/charts/share-bars";
import { StackedBars } from "@/components/charts/stacked-bars";
import { CopyButton } from "@/components/ui/copy-button";
import { Spinner } from "@/components/ui/spinner";
import { fieldLabel, panel, primaryButton, secondaryButton, textInput } from "@/components/ui/styles";
import { callApi } from "@/lib/client/api";

type Account = {
  key: { id: string; label: string; last4: string; created_at: string; daily_limit: number };
  webhook_secret: string;
};
type UsageDay = { date: string; generate: number; enhance: number; failed: number; by_model: Record<string, number> };
type Usage = {
  days: UsageDay[];
  total: number;
  today?: { used: number; remaining: number; reset_at: string };
};

const RANGES = [7, 30, 90] as const;

/** The key (only in memory), the range, what the server answered for it, and the steps that read it. */
function useUsage() {
  const [input, setInput] = useState("");
  const [key, setKey] = useState<string | null>(null);
  const [days, setDays] = useState<number>(30);
  const [account, setAccount] = useState<Account | null>(null);
  const [usage, setUsage] = useState<Usage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [showSecret, setShowSecret] = useState(false);

  async function load(withKey: string, range: number) {
    setPending(true);
    setError(null);
    const headers = { Authorization: `Bearer ${withKey}` };
    const [a, u] = await Promise.all([
      callApi<Account>("/api/account", { headers }),
      callApi<Usage>(`/api/usage?days=${range}`, { headers }),
    ]);
    setPending(false);
    if (!a.ok || !u.ok) {
      const err = !a.ok ? a.error : !u.ok ? u.error : null;
      setError(
        err?.code === "unauthorized"
          ? "That key is not a valid, active Pro key."
          : (err?.message ?? "Could not read your usage."),
      );
      return false;
    }
    setAccount(a.data);
    setUsage(u.data);
    return true;
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const trimmed = input.trim();
    if (!trimmed || pending) return;
    if (await load(trimmed, days)) {
      setKey(trimmed);
      setInput("");
    }
  }

  function forget() {
    setKey(null);
    setAccount(null);
    setUsage(null);
    setShowSecret(false);
  }

  return {
    input,
    setInput,
    key,
    days,
    setDays,
    account,
    usage,
    error,
    pending,
    showSecret,
    setShowSecret,
    load,
    onSubmit,
    forget,
  };
}

type UsageState = ReturnType<typeof useUsage>;

function KeyForm({ s }: { s: UsageState }) {
  const { onSubmit, input, setInput, error, pending } = s;
  return (
    <form onSubmit={onSubmit} className={`${panel} space-y-4 p-5 sm:p-6`} aria-label="Show my usage">
      <div>
        <label htmlFor="pro-key" className={fieldLabel}>
          Your Pro API key
        </label>
        <input
          id="pro-key"
          type="password"
          autoComplete="off"
          spellCheck={false}
          placeholder="dk_live_…"
          value={input}
          onChange={(e) => setInput(e.target.value)}
          aria-invalid={Boolean(error)}
          aria-describedby="pro-key-help pro-key-error"
          className={`${textInput} mt-1.5 font-mono`}
        />
        <p id="pro-key-help" className="mt-1 text-sm text-stone-600 dark:text-stone-400">
          Kept only in this page&apos;s memory while it is open, and sent only to this server.
        </p>
        <p
          id="pro-key-error"
          role="alert"
          className="mt-1 text-sm font-medium text-red-700 empty:hidden dark:text-red-300"
        >
          {error ?? ""}
        </p>
      </div>
      <button type="submit" className={primaryButton} disabled={pending || !input.trim()}>
        {pending && <Spinner />}
        Show my usage
      </button>
    </form>
  );
}

function AccountSection({ s, account, usage }: { s: UsageState; account: Account; usage: Usage }) {
  const { forget, showSecret, setShowSecret } = s;
  return (
    <section className={`${panel} p-5 sm:p-6`} aria-labelledby="account-title">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h2 id="account-title" className="text-lg font-semibold">
            {account.key.label} <span className="font-mono text-base font-normal">…{account.key.last4}</span>
          </h2>
          <p className="mt-1 text-sm text-stone-700 dark:text-stone-300">
            {account.key.daily_limit.toLocaleString("en-US")} requests a day
            {usage.today && (
              <>
                {" "}
                · <span data-testid="used-today">{usage.today.used}</span> used today,{" "}
                {usage.today.remaining.toLocaleString("en-US")} left
              </>
            )}
          </p>
        </div>
        <button type="button" className={secondaryButton} onClick={forget}>
          Forget key
        </button>
      </div>
      <div className="mt-4">
        <p className="text-sm font-medium">Webhook signing secret</p>
        <div className="mt-1 flex flex-wrap items-center gap-2">
          <code className="min-w-0 flex-1 overflow-x-auto rounded-lg bg-stone-100 px-3 py-2 font-mono text-sm whitespace-nowrap dark:bg-stone-950">
            {showSecret ? account.webhook_secret : "whsec_••••••••••••••••"}
          </code>
          <button type="button" className={secondaryButton} onClick={() => setShowSecret((s) => !s)}>
            {showSecret ? "Hide" : "Show"}
          </button>
          <CopyButton text={account.webhook_secret} label="Copy secret" copiedLabel="Secret copied" />
        </div>
      </div>
    </section>
  );
}

function DailyUsage({ s, usageKey, usage }: { s: UsageState; usageKey: string; usage: Usage }) {
  const { days, setDays, load, pending } = s;
  const key = usageKey;
  const labels = usage.days.map((d) => d.date);
  const models = new Map<string, number>();
  for (const d of usage.days) for (const [m, n] of Object.entries(d.by_model)) models.set(m, (models.get(m) ?? 0) + n);
  return (
    <section className={`${panel} p-5 sm:p-6`} aria-label="Daily usage">
      <div className="mb-4 flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm">
          <span className="font-semibold" data-testid="usage-total">
            {usage.total.toLocaleString("en-US")}
          </span>{" "}
          requests in the last {usage.days.length} days
        </p>
        <fieldset className="flex gap-1">
          <legend className="sr-only">Period</legend>
          {RANGES.map((r) => (
            <label
              key={r}
              className="cursor-pointer rounded-lg border border-stone-300 px-3 py-1 text-sm has-checked:border-stone-900 has-checked:bg-stone-900 has-checked:text-white has-focus-visible:outline-2 has-focus-visible:outline-safelight-600 dark:border-stone-700 dark:has-checked:border-safelight-300 dark:has-checked:bg-safelight-300 dark:has-checked:text-stone-950"
            >
              <input
                type="radio"
                name="usage-range"
                className="sr-only"
                checked={days === r}
                onChange={() => {
                  setDays(r);
                  void load(key, r);
                }}
              />
              {r} days
            </label>
          ))}
        </fieldset>
      </div>
      <StackedBars
        title="Your requests per day"
        labels={labels}
        testId="chart-account"
        series={[
          { key: "generate", label: "Generations", color: COLORS.navy, values: usage.days.map((d) => d.generate) },
          { key: "enhance", label: "Enhancements", color: COLORS.amber, values: usage.days.map((d) => d.enhance) },
          { key: "failed", label: "Failed", color: COLORS.red, values: usage.days.map((d) => d.failed) },
        ]}
      />
      <div className="mt-6">
        <ShareBars title="By model" items={[...models].map(([label, value]) => ({ label, value }))} />
      </div>
      <div className="mt-4 flex justify-end">
        <button type="button" className={secondaryButton} onClick={() => void load(key, days)} disabled={pending}>
          {pending && <Spinner />}
          Refresh
        </button>
      </div>
    </section>
  );
}

export function UsageViewer() {
  const s = useUsage();
  const { key, account, usage } = s;
  if (!key || !account || !usage) return <KeyForm s={s} />;
  return (
    <div className="space-y-6" data-testid="account-usage">
      <AccountSection s={s} account={account} usage={usage} />
      <DailyUsage s={s} usageKey={key} usage={usage} />
    </div>
  );
}
