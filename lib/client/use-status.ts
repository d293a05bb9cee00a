// Loads /api/status once per page; the status guard allows 60 calls a minute, so nothing polls it.
"use client";
import { useCallback, useEffect, useState } from "react";
import type { StatusResponse } from "@/lib/schemas/status";
import { type ClientError, callApi } from "./api";

export function useStatus(): { status: StatusResponse | null; error: ClientError | null; reload: () => void } {
  const [status, setStatus] = useState<StatusResponse | null>(null);
  const [error, setError] = useState<ClientError | null>(null);

  const reload = useCallback(() => {
    void callApi<StatusResponse>("/api/status").then((res) => {
      if (res.ok) {
        setStatus(res.data);
        setError(null);
      } else {
        setError(res.error);
      }
    });
  }, []);

  useEffect(reload, [reload]);
  return { status, error, reload };
}
