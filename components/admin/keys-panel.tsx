// Pro keys: create one (shown once), see each key's use and limit, change the limit, revoke.
"use client";
import { type FormEvent, useCallback, useEffect, useState } from "react";
import { Spinner } from "@/components/ui/spinner";
import { fieldLabel, panel, primaryButton, secondaryButton, textInput } from "@/components/ui/styles";
import { adminApi, type IssuedKey, type KeyRow } from "@/lib/client/admin-api";
import { formatWhen } from "./format";
import { IssuedKeyPanel } from "./issued-key";
import { Notice, ScrollRegion, StatusBadge } from "./parts";

const smallButton = `${secondaryButton} px-2 py-1 text-xs`;

export function KeysPanel({ mailEnabled }: { mailEnabled: boolean }) {
  const [keys, setKeys] = useState<KeyRow[] | null>(null);
  const [issued, setIssued] = useState<IssuedKey | null>(null);
  const [message, setMessage] = useState<{ tone: "error" | "info"; text: string } | null>(null);

  const load = useCallback(async () => {
    const res = await adminApi.keys();
    if (res.ok) setKeys(res.data.keys);
    else setMessage({ tone: "error", text: res.error.message });
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  return (
    <div className="space-y-6">
      {issued && <IssuedKeyPanel issued={issued} onDone={() => setIssued(null)} />}
      <CreateKeyForm
        mailEnabled={mailEnabled}
        onCreated={async (k) => {
          setIssued(k);
          await load();
        }}
      />
      {message && <Notice tone={message.tone}>{message.text}</Notice>}
      {keys?.length === 0 && <p className="text-sm text-stone-600 dark:text-stone-400">No keys yet.</p>}
      <ScrollRegion label="Pro keys" className="rounded-xl border border-stone-200 dark:border-stone-800">
        <table className="w-full min-w-[56rem] text-left text-sm" data-testid="keys-table">
          <caption className="sr-only">Pro keys</caption>
          <thead className="bg-stone-100 text-stone-700 dark:bg-stone-900 dark:text-stone-300">
            <tr>
              {["Label", "Email", "Key", "Created", "Last used", "Today", "30 days", "Daily limit", "Status"].map(
                (h) => (
                  <th key={h} scope="col" className="px-3 py-2 font-semibold whitespace-nowrap">
                    {h}
                  </th>
                ),
              )}
              <th scope="col" className="px-3 py-2">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys?.map((k) => (
              <KeyRowView key={k.id} row={k} onChanged={load} onError={(text) => setMessage({ tone: "error", text })} />
            ))}
          </tbody>
        </table>
      </ScrollRegion>
    </div>
  );
}

/** A key row's editing state and its one step: run an admin call, report a refusal, and reload. */
function useKeyRow(row: KeyRow, onChanged: () => Promise<void>, onError: (t: string) => void) {
  const [editing, setEditing] = useState(false);
  const [limit, setLimit] = useState(String(row.daily_limit));
  const [confirming, setConfirming] = useState(false);
  const [deleteImages, setDeleteImages] = useState(false);
  const [busy, setBusy] = useState(false);

  async function run(action: () => ReturnType<typeof adminApi.revoke>) {
    setBusy(true);
    const res = await action();
    setBusy(false);
    if (!res.ok) onError(`${row.label}: ${res.error.message}`);
    setEditing(false);
    setConfirming(false);
    await onChanged();
  }

  const saveLimit = (e: FormEvent) => {
    e.preventDefault();
    const n = Number(limit);
    if (!Number.isInteger(n) || n < 0) return onError("A daily limit is a whole number, 0 or more.");
    void run(() => adminApi.setLimit(row.id, n));
  };
  return {
    editing,
    setEditing,
    limit,
    setLimit,
    confirming,
    setConfirming,
    deleteImages,
    setDeleteImages,
    busy,
    run,
    saveLimit,
  };
}

type KeyRowState = ReturnType<typeof useKeyRow>;

function LimitCell({ row, k }: { row: KeyRow; k: KeyRowState }) {
  const { editing, saveLimit, limit, setLimit, busy, run } = k;
  if (!editing) {
    return (
      <span className="tabular-nums">
        {row.daily_limit.toLocaleString("en-US")}
        {row.default_limit && <span className="text-stone-600 dark:text-stone-400"> (default)</span>}
      </span>
    );
  }
  return (
    <form onSubmit={saveLimit} className="flex items-center gap-1">
      <label className="sr-only" htmlFor={`limit-${row.id}`}>
        Daily limit for {row.label}
      </label>
      <input
        id={`limit-${row.id}`}
        type="number"
        min={0}
        step={1}
        value={limit}
        onChange={(e) => setLimit(e.target.value)}
        className={`${textInput} w-24 px-2 py-1 text-sm`}
      />
      <button type="submit" className={smallButton} disabled={busy}>
        Save
      </button>
      {!row.default_limit && (
        <button
          type="button"
          className={smallButton}
          disabled={busy}
          onClick={() => run(() => adminApi.setLimit(row.id, null))}
        >
          Default
        </button>
      )}
    </form>
  );
}

function KeyRowActions({ row, k }: { row: KeyRow; k: KeyRowState }) {
  const { editing, setEditing, confirming, setConfirming, busy } = k;
  return (
    <div className="flex justify-end gap-1 whitespace-nowrap">
      {!editing && (
        <button
          type="button"
          className={smallButton}
          onClick={() => setEditing(true)}
          aria-label={`Change the daily limit of ${row.label}`}
        >
          Limit
        </button>
      )}
      {!row.revoked_at &&
        (confirming ? (
          <button type="button" className={smallButton} disabled={busy} onClick={() => setConfirming(false)}>
            Cancel
          </button>
        ) : (
          <button
            type="button"
            className={smallButton}
            onClick={() => setConfirming(true)}
            aria-label={`Revoke ${row.label}`}
          >
            Revoke
          </button>
        ))}
    </div>
  );
}

function RevokeConfirmRow({ row, k }: { row: KeyRow; k: KeyRowState }) {
  const { deleteImages, setDeleteImages, busy, run } = k;
  return (
    <tr className="bg-red-50/60 dark:bg-red-950/30" data-key-id={row.id}>
      <td colSpan={10} className="px-3 py-3">
        {/* Sticky, so the question stays in view however far the table is scrolled sideways. */}
        <fieldset className="sticky left-3 flex w-fit max-w-[calc(100vw-4rem)] flex-wrap items-center gap-x-4 gap-y-2">
          <legend className="sr-only">Revoke {row.label}</legend>
          <p className="text-sm">
            Revoke <strong className="[overflow-wrap:anywhere]">{row.label}</strong>? Its next request is refused.
          </p>
          <label className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              checked={deleteImages}
              onChange={(e) => setDeleteImages(e.target.checked)}
              className="size-4 accent-red-700"
            />
            Also delete its images
          </label>
          <button
            type="button"
            className={`${smallButton} border-red-600 text-red-800 dark:border-red-400 dark:text-red-200`}
            disabled={busy}
            onClick={() => run(() => adminApi.revoke(row.id, deleteImages))}
          >
            {busy && <Spinner className="size-3" />}
            {deleteImages ? "Confirm revoke and delete images" : "Confirm revoke"}
          </button>
        </fieldset>
      </td>
    </tr>
  );
}

function KeyRowView({
  row,
  onChanged,
  onError,
}: {
  row: KeyRow;
  onChanged: () => Promise<void>;
  onError: (t: string) => void;
}) {
  const k = useKeyRow(row, onChanged, onError);
  const main = (
    <tr className="border-t border-stone-200 align-top dark:border-stone-800" data-key-id={row.id}>
      <td className="min-w-40 px-3 py-2 font-medium [overflow-wrap:anywhere]">{row.label}</td>
      <td className="min-w-40 px-3 py-2 [overflow-wrap:anywhere]">{row.email ?? "—"}</td>
      <td className="px-3 py-2 font-mono whitespace-nowrap">…{row.last4}</td>
      <td className="px-3 py-2 whitespace-nowrap">{formatWhen(row.created_at)}</td>
      <td className="px-3 py-2 whitespace-nowrap">{formatWhen(row.last_used_at)}</td>
      <td className="px-3 py-2 tabular-nums" data-testid="key-usage-today">
        {row.usage_today}
      </td>
      <td className="px-3 py-2 tabular-nums">{row.usage_30d}</td>
      <td className="px-3 py-2">
        <LimitCell row={row} k={k} />
      </td>
      <td className="px-3 py-2">
        <StatusBadge status={row.revoked_at ? "revoked" : "active"} />
      </td>
      <td className="px-3 py-2">
        <KeyRowActions row={row} k={k} />
      </td>
    </tr>
  );
  if (!k.confirming || row.revoked_at) return main;
  return (
    <>
      {main}
      <RevokeConfirmRow row={row} k={k} />
    </>
  );
}

function CreateKeyForm({
  mailEnabled,
  onCreated,
}: {
  mailEnabled: boolean;
  onCreated: (k: IssuedKey) => Promise<void>;
}) {
  const [label, setLabel] = useState("");
  const [email, setEmail] = useState("");
  const [limit, setLimit] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setPending(true);
    setError(null);
    const res = await adminApi.createKey({
      label: label.trim(),
      ...(email.trim() && { email: email.trim() }),
      ...(limit.trim() && { daily_limit: Number(limit) }),
    });
    setPending(false);
    if (!res.ok) return setError(res.error.message);
    setLabel("");
    setEmail("");
    setLimit("");
    await onCreated(res.data);
  }

  return (
    <form
      onSubmit={onSubmit}
      className={`${panel} grid gap-4 p-4 sm:grid-cols-[2fr_2fr_1fr_auto] sm:items-end sm:p-5`}
      aria-label="Create a key"
    >
      <div>
        <label htmlFor="new-key-label" className={fieldLabel}>
          Label
        </label>
        <input
          id="new-key-label"
          required
          maxLength={200}
          value={label}
          onChange={(e) => setLabel(e.target.value)}
          className={`${textInput} mt-1`}
        />
      </div>
      <div>
        <label htmlFor="new-key-email" className={fieldLabel}>
          Email{" "}
          <span className="font-normal text-stone-600 dark:text-stone-400">
            (optional{mailEnabled ? ", gets the key" : ""})
          </span>
        </label>
        <input
          id="new-key-email"
          type="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          className={`${textInput} mt-1`}
        />
      </div>
      <div>
        <label htmlFor="new-key-limit" className={fieldLabel}>
          Daily limit <span className="font-normal text-stone-600 dark:text-stone-400">(optional)</span>
        </label>
        <input
          id="new-key-limit"
          type="number"
          min={0}
          step={1}
          value={limit}
          onChange={(e) => setLimit(e.target.value)}
          className={`${textInput} mt-1`}
        />
      </div>
      <button type="submit" className={primaryButton} disabled={pending || !label.trim()}>
        {pending && <Spinner />}
        Create key
      </button>
      {error && (
        <p role="alert" className="text-sm font-medium text-red-700 sm:col-span-4 dark:text-red-300">
          {error}
        </p>
      )}
    </form>
  );
}
