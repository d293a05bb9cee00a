// The Generate button: shows elapsed time while working and cannot be pressed twice.
"use client";
import { Spinner } from "@/components/ui/spinner";
import { primaryButton } from "@/components/ui/styles";
import { useElapsed } from "@/lib/client/use-elapsed";

export function GenerateButton({ startedAt }: { startedAt: number | null }) {
  const elapsed = useElapsed(startedAt);
  const busy = startedAt !== null;
  return (
    <button
      type="submit"
      disabled={busy}
      aria-disabled={busy}
      className={`${primaryButton} w-full py-3 text-base`}
      data-testid="generate"
    >
      {busy ? (
        <>
          <Spinner />
          <span>
            Generating… <span className="tabular-nums">{elapsed.toFixed(1)} s</span>
          </span>
        </>
      ) : (
        "Generate"
      )}
    </button>
  );
}
