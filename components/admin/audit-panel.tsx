// The audit log: every admin action, newest first, with the actor's network (the API also has the address).
"use client";
import { useEffect, useState } from "react";
import { type AuditRow, adminApi } from "@/lib/client/admin-api";
import { formatWhen } from "./format";
import { Notice, ScrollRegion } from "./parts";

const ACTIONS: Record<string, string> = {
  sign_in: "Signed in",
  sign_out: "Signed out",
  sign_out_everywhere: "Signed out everywhere",
  sign_in_failed: "Failed sign-in",
  lockout: "Sign-ins locked out",
  approve: "Approved",
  decline: "Declined",
  key_create: "Created key",
  key_revoke: "Revoked key",
  limit_change: "Changed limit",
  images_delete: "Deleted key's images",
};

export function AuditPanel() {
  const [entries, setEntries] = useState<AuditRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void adminApi.audit().then((res) => (res.ok ? setEntries(res.data.entries) : setError(res.error.message)));
  }, []);
  if (error) return <Notice tone="error">{error}</Notice>;
  return (
    <ScrollRegion label="Audit log" className="rounded-xl border border-stone-200 dark:border-stone-800">
      <table className="w-full min-w-[40rem] text-left text-sm" data-testid="audit-table">
        <caption className="sr-only">Audit log, newest first</caption>
        <thead className="bg-stone-100 text-stone-700 dark:bg-stone-900 dark:text-stone-300">
          <tr>
            {["Time", "Action", "Target", "Network", "Via"].map((h) => (
              <th key={h} scope="col" className="px-3 py-2 font-semibold">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {entries?.length === 0 && (
            <tr>
              <td colSpan={5} className="px-3 py-6 text-center text-stone-600 dark:text-stone-400">
                Nothing yet.
              </td>
            </tr>
          )}
          {entries?.map((e) => (
            <tr key={e.id} className="border-t border-stone-200 dark:border-stone-800">
              <td className="px-3 py-2 whitespace-nowrap">{formatWhen(e.time)}</td>
              <td className="px-3 py-2">
                {ACTIONS[e.action] ?? e.action}
                {e.detail && <span className="text-stone-600 dark:text-stone-400"> · {e.detail}</span>}
              </td>
              <td className="px-3 py-2 font-mono text-xs break-all">{e.target}</td>
              <td className="px-3 py-2 font-mono text-xs whitespace-nowrap">{e.network ?? "—"}</td>
              <td className="px-3 py-2">{e.actor}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
