// Waitlist signups: the same answer for new and known emails, so the list cannot be enumerated.
import type { WaitlistRepository } from "@/lib/console/types";

export const WAITLIST_CONFIRMATION =
  "Thanks! If this email is not on the waitlist yet, it is now. We'll write when Pro keys open up.";

export async function joinWaitlist(
  waitlist: Pick<WaitlistRepository, "addToWaitlist">,
  signup: { email: string; useCase: string | null },
): Promise<void> {
  await waitlist.addToWaitlist({ email: signup.email, useCase: signup.useCase, createdAt: new Date().toISOString() });
}
