// The Pro self-view endpoints need a Pro key (401 otherwise) and count on the per-minute status guard.
import type { Caller } from "@/lib/auth/types";
import { ApiError } from "@/lib/schemas/api-error";
import type { Services } from "@/lib/services";
import { enforceCallGuard } from "./call-guard";

export async function requireProCaller(caller: Caller, svc: Services, what: string): Promise<string> {
  if (caller.plan !== "pro" || !caller.keyId) {
    throw new ApiError("unauthorized", `${what} needs a Pro key: send Authorization: Bearer <key>.`);
  }
  await enforceCallGuard(svc.statusGuard, svc.buckets.statusGuard, caller, what);
  return caller.keyId;
}
