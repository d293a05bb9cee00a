// The Pro waitlist form: email, optional use case, and a confirmation that reads the same for new and known emails.
"use client";
import { type FormEvent, useRef, useState } from "react";
import { Spinner } from "@/components/ui/spinner";
import { fieldLabel, primaryButton, textInput } from "@/components/ui/styles";
import { type ClientError, postJson } from "@/lib/client/api";
import { emailSchema } from "@/lib/schemas/fields";
import { USE_CASE_MAX } from "@/lib/schemas/waitlist";

/** The form's fields and the signup step: checked here first, then answered by /api/waitlist. */
function useSignup() {
  const [email, setEmail] = useState("");
  const [useCase, setUseCase] = useState("");
  const [emailError, setEmailError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [confirmation, setConfirmation] = useState<string | null>(null);
  const [error, setError] = useState<ClientError | null>(null);
  const emailRef = useRef<HTMLInputElement>(null);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (pending) return;
    const trimmed = email.trim();
    if (!emailSchema.safeParse(trimmed.toLowerCase()).success) {
      setEmailError("Please enter a valid email address, like ada@example.com.");
      emailRef.current?.focus();
      return;
    }
    setEmailError(null);
    setError(null);
    setConfirmation(null);
    setPending(true);
    const res = await postJson<{ message: string }>("/api/waitlist", {
      email: trimmed,
      ...(useCase.trim() && { use_case: useCase.trim() }),
    });
    setPending(false);
    if (res.ok) {
      setConfirmation(res.data.message);
    } else if (res.error.code === "invalid_email") {
      setEmailError(res.error.message);
      emailRef.current?.focus();
    } else {
      setError(res.error);
    }
  }

  return { email, setEmail, useCase, setUseCase, emailError, pending, confirmation, error, emailRef, onSubmit };
}

type Signup = ReturnType<typeof useSignup>;

function EmailField({ s }: { s: Signup }) {
  const { emailRef, email, setEmail, emailError } = s;
  return (
    <div>
      <label htmlFor="email" className={fieldLabel}>
        Email
      </label>
      <input
        id="email"
        ref={emailRef}
        type="email"
        name="email"
        autoComplete="email"
        inputMode="email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        aria-invalid={Boolean(emailError)}
        aria-describedby="email-error"
        placeholder="you@example.com"
        className={`${textInput} mt-1.5`}
      />
      <p
        id="email-error"
        aria-live="polite"
        className="mt-1 text-sm font-medium text-red-700 empty:hidden dark:text-red-300"
      >
        {emailError ?? ""}
      </p>
    </div>
  );
}

function UseCaseField({ s, tooLong }: { s: Signup; tooLong: boolean }) {
  const { useCase, setUseCase } = s;
  return (
    <div>
      <div className="flex items-baseline justify-between gap-2">
        <label htmlFor="use-case" className={fieldLabel}>
          What would you use it for? <span className="font-normal text-stone-600 dark:text-stone-400">(optional)</span>
        </label>
        <span
          id="use-case-counter"
          className={`shrink-0 text-xs whitespace-nowrap tabular-nums ${tooLong ? "font-semibold text-red-700 dark:text-red-300" : "text-stone-600 dark:text-stone-400"}`}
        >
          {useCase.length} / {USE_CASE_MAX}
        </span>
      </div>
      <textarea
        id="use-case"
        name="use_case"
        rows={3}
        maxLength={USE_CASE_MAX}
        value={useCase}
        onChange={(e) => setUseCase(e.target.value)}
        aria-describedby="use-case-counter"
        placeholder="Product shots for my shop, thumbnails for a blog…"
        className={`${textInput} mt-1.5 resize-y`}
      />
    </div>
  );
}

/** The confirmation (the same for new and known emails) or the refusal. */
function SignupAnswer({ confirmation, error }: { confirmation: string | null; error: ClientError | null }) {
  return (
    <div aria-live="polite" role="status">
      {confirmation && (
        <p
          className="rounded-xl border border-emerald-300 bg-emerald-50 p-4 text-sm text-emerald-950 dark:border-emerald-800 dark:bg-emerald-950/50 dark:text-emerald-100"
          data-testid="waitlist-confirmation"
        >
          <span className="font-semibold">You&apos;re on the list. </span>
          {confirmation}
        </p>
      )}
      {error && (
        <p
          className="rounded-xl border border-red-300 bg-red-50 p-4 text-sm text-red-950 dark:border-red-800 dark:bg-red-950/50 dark:text-red-100"
          data-testid="waitlist-error"
        >
          {error.code === "rate_limited"
            ? "Too many signups from this network today. Please try again tomorrow."
            : error.message}
        </p>
      )}
    </div>
  );
}

export function WaitlistForm() {
  const s = useSignup();
  const { onSubmit, useCase, pending } = s;
  const tooLong = useCase.length > USE_CASE_MAX;
  return (
    <form onSubmit={onSubmit} noValidate className="space-y-5" aria-label="Join the Pro waitlist">
      <EmailField s={s} />
      <UseCaseField s={s} tooLong={tooLong} />
      <button type="submit" className={`${primaryButton} w-full sm:w-auto`} disabled={pending || tooLong}>
        {pending ? (
          <>
            <Spinner /> Joining…
          </>
        ) : (
          "Join the waitlist"
        )}
      </button>
      <SignupAnswer confirmation={s.confirmation} error={s.error} />
    </form>
  );
}
