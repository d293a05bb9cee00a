// Waitlist signups: open to anyone, rate limited per IP, and the same answer for new and known emails.
import { ApiError } from "@/lib/api/errors";
import { secondsUntil } from "@/lib/api/headers";
import { readJsonObject } from "@/lib/api/read-json";
import { identityOfIp, readClientIp } from "@/lib/auth/identify";
import { waitlistRequestSchema } from "@/lib/schemas/waitlist";
import type { Services } from "@/lib/services";
import type { Usage } from "@/lib/store/types";

export const WAITLIST_CONFIRMATION =
  "Thanks! If this email is not on the waitlist yet, it is now. We'll write when Pro keys open up.";

export async function joinWaitlist(req: Request, svc: Services, setUsage: (u: Usage) => void) {
  const identity = identityOfIp(readClientIp(req, svc));
  const body = await readJsonObject(req);
  const parsed = waitlistRequestSchema.safeParse({
    ...body,
    email: typeof body.email === "string" ? body.email.trim().toLowerCase() : body.email,
  });
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path[0];
    throw new ApiError(field === "use_case" ? "invalid_use_case" : "invalid_email");
  }
  const take = await svc.store.take(svc.buckets.waitlistSignups, identity);
  setUsage(take);
  if (!take.ok) {
    throw new ApiError("rate_limited", "Too many signups from this address today. Please try again tomorrow.", {
      retryAfter: secondsUntil(take.resetMs),
    });
  }
  const useCase = parsed.data.use_case?.trim() || null;
  await svc.store.addToWaitlist({ email: parsed.data.email, useCase, createdAt: new Date().toISOString() });
  return { success: true as const, message: WAITLIST_CONFIRMATION };
}
