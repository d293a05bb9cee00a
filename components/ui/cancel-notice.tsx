// Says a job was cancelled, and plainly whether its free unit came back (it was waiting) or not (it had started).
import { describeCancel, type JobKind } from "@/lib/client/job-copy";

export function CancelNotice({ kind, started }: { kind: JobKind; started: boolean }) {
  const copy = describeCancel(kind, started);
  return (
    <div
      data-testid="cancel-notice"
      data-started={started}
      className="rounded-xl border border-stone-300 bg-stone-100 p-4 text-sm text-stone-900 dark:border-stone-700 dark:bg-stone-800 dark:text-stone-100"
    >
      <p className="font-semibold">{copy.title}</p>
      <p className="mt-1">{copy.detail}</p>
    </div>
  );
}
