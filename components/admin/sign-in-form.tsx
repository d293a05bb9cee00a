// Signs in to the console with the admin token; the server answers with the session cookie, then the page reloads.
"use client";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { Spinner } from "@/components/ui/spinner";
import { fieldLabel, panel, primaryButton, textInput } from "@/components/ui/styles";
import { adminApi } from "@/lib/client/admin-api";

export function SignInForm() {
  const router = useRouter();
  const [token, setToken] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (pending || !token) return;
    setPending(true);
    setError(null);
    const res = await adminApi.signIn(token);
    setPending(false);
    if (res.ok) {
      setToken("");
      router.refresh();
      return;
    }
    setError(
      res.error.code === "unauthorized"
        ? "That is not the admin token."
        : res.error.code === "rate_limited"
          ? `Too many failed sign-ins from this address. Try again in ${Math.ceil((res.error.retryAfterSec ?? 3600) / 60)} minutes.`
          : res.error.message,
    );
  }

  return (
    <div className="mx-auto max-w-md px-3 py-8 sm:px-6 sm:py-12">
      <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Operators&apos; console</h1>
      <p className="mt-2 text-stone-700 dark:text-stone-300">Sign in with the server&apos;s admin token.</p>
      <form onSubmit={onSubmit} className={`${panel} mt-6 space-y-4 p-5 sm:p-6`} aria-label="Sign in">
        <div>
          <label htmlFor="admin-token" className={fieldLabel}>
            Admin token
          </label>
          <input
            id="admin-token"
            type="password"
            autoComplete="current-password"
            spellCheck={false}
            value={token}
            onChange={(e) => setToken(e.target.value)}
            aria-invalid={Boolean(error)}
            aria-describedby="sign-in-error"
            className={`${textInput} mt-1.5 font-mono`}
          />
          <p
            id="sign-in-error"
            role="alert"
            className="mt-1 text-sm font-medium text-red-700 empty:hidden dark:text-red-300"
            data-testid="sign-in-error"
          >
            {error ?? ""}
          </p>
        </div>
        <button type="submit" className={`${primaryButton} w-full`} disabled={pending || !token}>
          {pending && <Spinner />}
          Sign in
        </button>
        <p className="text-xs text-stone-600 dark:text-stone-400">
          The session lasts 12 hours on this browser. Ten wrong tokens in an hour lock this address out for the hour.
        </p>
      </form>
    </div>
  );
}
