// Waitlist signups: the same answer for new and known emails, so the list cannot be enumerated.
import type { Store } from "@/lib/store/types";

export const WAITLIST_CONFIRMATION =
  "Thanks! If this email is not on the waitlist yet, it is now. We'll write when Pro keys open up.";

export async function joinWaitlist(store: Store, signup: { email: string; useCase: string | null }): Promise<void> {
  await store.addToWaitlist({ email: signup.email, useCase: signup.useCase, createdAt: new Date().toISOString() });
}
