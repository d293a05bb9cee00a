// What a flow (generate, enhance) is called with and what it answers, whatever the entry point: an /api route
// wraps the answer in HTTP, an MCP tool in a tool result. Plain arguments: nothing here is a request.
import type { Caller } from "@/lib/auth/types";
import type { Idempotency } from "@/lib/idempotency/idempotency";
import type { Quota } from "@/lib/quota/ledger";
import type { Services } from "@/lib/services";
import type { AcceptedJob } from "./async";

/** Who calls a flow, on which account, and where its answer's URLs point. */
export type FlowContext = {
  svc: Services;
  caller: Caller;
  /** The call's quota: the flow takes from it before costly work; the entry point settles it. */
  quota: Quota;
  /** The call's Idempotency-Key (or none): the flow claims it once the request is known. */
  idempotency: Idempotency;
  requestId: string;
  /** The app's own origin, for URLs when no CDN base is set. */
  origin: string;
  /** Aborts the work (the caller left, or the server's shutdown grace is over). */
  readonly signal: AbortSignal;
};

/** A flow that may run as a job: the context, and whether the caller asked for one. */
export type FlowCall = FlowContext & {
  /** True when the caller asked for a job (Prefer: respond-async, a tool's async, a progress token). */
  prefersAsync: boolean;
};

/**
 * What a flow answers: the stored answer of an Idempotency-Key's first request, a job accepted to run later (the
 * entry point keeps its process alive until `done`), or the body of the work done now.
 */
export type FlowAnswer = { replay: Response } | { job: AcceptedJob } | { body: Record<string, unknown> };
