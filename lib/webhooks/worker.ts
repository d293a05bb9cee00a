// Delivers what the outbox holds: claims due deliveries under a lease, makes each attempt, records it, and tells
// the caller (the job runner) what happened so the job record's `webhook` field can follow.
import { EventEmitter } from "node:events";
import { StoreUnavailable } from "@/lib/errors";
import { describeError, log } from "@/lib/log";
import { processSingleton } from "@/lib/singleton";
import type { ClaimedDelivery, WebhookOutbox } from "@/lib/webhooks/outbox";
import { nextRetryAt } from "./schedule";
import { ATTEMPT_TIMEOUT_MS, isDelivered, type Resolver, type SendResult, sendWebhook } from "./send";
import { newWebhookId, signWebhook } from "./sign";

/** The job record's `webhook` field after an attempt, as the contract names it. */
export type WebhookAttempt = {
  attempts: number;
  /** The receiver's HTTP status, or null when there was no answer (or nothing was sent). */
  last_status: number | null;
  /** ISO time of the 2xx answer, else null. */
  delivered_at: string | null;
};

export type WebhookWorkerOptions = {
  store: WebhookOutbox;
  /** Called after each recorded attempt; an error it throws is logged and does not undo the attempt. */
  onAttempt: (jobId: string, attempt: WebhookAttempt) => void | Promise<void>;
  /** WEBHOOK_ALLOW_HOSTS. */
  allowHosts: readonly string[];
  /**
   * How often the outbox is asked for due deliveries that this worker does not know about (enqueued or retried by
   * another instance). An enqueue in this process, and a retry this worker scheduled, wake it on time regardless.
   * @default 5000
   */
  pollMs?: number;
  /**
   * How long a claim keeps other workers off a delivery; longer than an attempt can take.
   * @default 60_000
   */
  leaseMs?: number;
  /**
   * Attempts in flight at once in this worker.
   * @default 8
   */
  concurrency?: number;
  /**
   * Deadline of one attempt.
   * @default 10_000
   */
  timeoutMs?: number;
  /** @default 65_536 */
  maxResponseBytes?: number;
  resolve?: Resolver;
  /** The clock for scheduling and signing (Unix ms). */
  now?: () => number;
  /** For the retry jitter; a number in [0, 1). */
  random?: () => number;
};

export type WebhookWorker = {
  /** Claims what is due now, makes those attempts and resolves once each is recorded; returns how many. */
  runDue(): Promise<number>;
  /** Look for due deliveries now rather than at the next poll. */
  poke(): void;
  /** Stops polling and waits for the attempts in flight. */
  stop(): Promise<void>;
};

// Enqueues in this process wake its workers, so a first attempt doesn't wait for the next poll.
const wakeups = () => processSingleton("webhooks.wakeups", () => new EventEmitter().setMaxListeners(0));

/**
 * Stores a delivery for its first attempt now; returns its webhook-id. The caller checked the URL with
 * checkWebhookUrl when the job was accepted; it is checked again before every attempt.
 */
export async function enqueueWebhook(
  store: WebhookOutbox,
  delivery: { jobId: string; url: string; secret: string; body: string },
  now = Date.now(),
): Promise<string> {
  const id = newWebhookId();
  await store.enqueue({ id, ...delivery, nextAttemptAt: now, createdAt: now });
  wakeups().emit("enqueued");
  return id;
}

/** A worker that only runs when told to (runDue); startWebhookWorker adds the polling. */
export function createWebhookWorker(opts: WebhookWorkerOptions): WebhookWorker & { start(): void } {
  const now = opts.now ?? Date.now;
  const pollMs = opts.pollMs ?? 5000;
  const leaseMs = opts.leaseMs ?? 60_000;
  const concurrency = opts.concurrency ?? 8;
  const timeoutMs = opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  if (leaseMs <= timeoutMs) throw new Error("webhooks: leaseMs must be longer than an attempt's timeoutMs");

  const inflight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Number.POSITIVE_INFINITY;
  let running = false;
  let stopped = false;
  let polling: Promise<void> | undefined;
  let again = false;

  const send = async (d: ClaimedDelivery): Promise<SendResult> => {
    const headers = signWebhook({ id: d.id, secret: d.secret, body: d.body, now: new Date(now()) });
    try {
      return await sendWebhook({
        url: d.url,
        body: d.body,
        headers,
        allowHosts: opts.allowHosts,
        timeoutMs,
        maxResponseBytes: opts.maxResponseBytes,
        resolve: opts.resolve,
      });
    } catch (err) {
      return { status: null, bytesRead: 0, error: describeError(err).error as string };
    }
  };

  const attempt = async (d: ClaimedDelivery): Promise<void> => {
    const result = await send(d);
    const at = now();
    const attempts = d.attempts + 1;
    const delivered = isDelivered(result);
    // A refused address will not become public by waiting, so it is not retried.
    const retryAt = delivered || result.refused ? null : nextRetryAt(attempts, at, opts.random);
    const fields = { job_id: d.jobId, webhook_id: d.id, attempts, status: result.status };
    if (result.refused) log.warn("webhook refused; not retried", { ...fields, reason: result.refused });
    else if (!delivered && retryAt === null)
      log.warn("webhook not delivered; giving up", { ...fields, reason: result.error });
    else if (!delivered) log.info("webhook attempt failed; will retry", { ...fields, reason: result.error });
    try {
      const recorded = await opts.store.recordAttempt(d.id, d.lease, { attempts, lastStatus: result.status, retryAt });
      if (!recorded) {
        log.warn("webhook lease ran out before the attempt was recorded", fields);
        return;
      }
      // Retries this worker scheduled run on time, not at the next poll.
      if (retryAt !== null) wakeAt(retryAt);
    } catch (err) {
      // The lease runs out and the attempt is made again: at least once, not exactly once.
      log.warn("webhook attempt could not be recorded", { ...fields, ...describeError(err) });
      return;
    }
    try {
      await opts.onAttempt(d.jobId, {
        attempts,
        last_status: result.status,
        delivered_at: delivered ? new Date(at).toISOString() : null,
      });
    } catch (err) {
      log.error("webhook onAttempt failed", { ...fields, ...describeError(err) });
    }
  };

  /** Claims as many due deliveries as there are free slots and starts them; returns the started attempts. */
  const claimAndStart = async (): Promise<Promise<void>[]> => {
    const free = concurrency - inflight.size;
    if (free <= 0 || stopped) return [];
    const claimed = await opts.store.claimDue(now(), leaseMs, free);
    return claimed.map((d) => {
      const p = attempt(d).finally(() => {
        inflight.delete(p);
        // A slot came free: more may be due.
        poke();
      });
      inflight.add(p);
      return p;
    });
  };

  const poll = async () => {
    if (stopped) return;
    try {
      await claimAndStart();
    } catch (err) {
      const report = err instanceof StoreUnavailable ? log.warn : log.error;
      report("webhook worker could not claim deliveries", describeError(err));
    }
    const soon = again;
    again = false;
    wakeAt(now() + (soon ? 0 : pollMs));
  };

  const tick = () => {
    if (stopped) return;
    if (polling) {
      // This poll may have claimed before the wake-up's reason existed: look again right after it.
      again = true;
      return;
    }
    polling = poll().finally(() => {
      polling = undefined;
    });
  };

  /** One timer: the earliest of the next poll, a retry this worker scheduled, or a wake-up. */
  function wakeAt(at: number) {
    if (!running || stopped) return;
    if (timer && at >= timerAt) return;
    if (timer) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(
      () => {
        timer = undefined;
        timerAt = Number.POSITIVE_INFINITY;
        tick();
      },
      Math.max(0, at - now()),
    );
    // The worker never keeps a process alive on its own.
    timer.unref();
  }

  function poke() {
    wakeAt(now());
  }

  return {
    async runDue() {
      const started = await claimAndStart();
      await Promise.all(started);
      return started.length;
    },
    poke,
    start() {
      if (running || stopped) return;
      running = true;
      wakeups().on("enqueued", poke);
      tick();
    },
    async stop() {
      stopped = true;
      wakeups().off("enqueued", poke);
      if (timer) clearTimeout(timer);
      await polling;
      await Promise.all([...inflight]);
    },
  };
}

/** Starts delivering; call once per process (the lead's job runner holds it in a processSingleton). */
export function startWebhookWorker(opts: WebhookWorkerOptions): WebhookWorker {
  const worker = createWebhookWorker(opts);
  worker.start();
  return worker;
}
