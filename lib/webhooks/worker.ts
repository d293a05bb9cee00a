// Delivers what the outbox holds: claims due deliveries under a lease (fairly: lib/webhooks/policy.ts), makes each
// attempt unless its host's breaker is open, records it, and tells the caller (the job runner) what happened so the
// job record's `webhook` field can follow. The composition root (lib/services.ts) builds one per process and pokes
// it when a job with a webhook ends, so a first attempt doesn't wait for the next poll.
import { StoreUnavailable } from "@/lib/errors";
import { describeError, log } from "@/lib/log";
import { observeWebhook } from "@/lib/metrics";
import { withSpan } from "@/lib/metrics/trace";
import type { ClaimedDelivery, ClaimLimits, NewDelivery, WebhookOutbox } from "@/lib/webhooks/outbox";
import { type BreakerSettings, createHostBreaker } from "./breaker";
import { CLAIM_LIMITS, DELIVERY_POLICY, hostOf } from "./policy";
import { nextRetryAt, SCHEDULE_SPAN_MS } from "./schedule";
import { ATTEMPT_TIMEOUT_MS, isDelivered, type Resolver, type SendResult, sendWebhook } from "./send";
import { newWebhookId, signWebhook } from "./sign";

/** The job record's `webhook` field after an attempt, as the contract names it. */
export type WebhookAttempt = {
  attempts: number;
  /** The receiver's HTTP status, or null when there was no answer (or nothing was sent). */
  last_status: number | null;
  /** ISO time of the 2xx answer, else null. */
  delivered_at: string | null;
  /**
   * Why the last attempt got no answer or was not made (refused URL, open breaker, timeout); absent once delivered
   * and after an attempt that got an answer, so a healthy record keeps exactly the 1.1 shape.
   */
  last_error?: string;
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
   * @default DELIVERY_POLICY.concurrency
   */
  concurrency?: number;
  /** Deliveries in flight per key and per host across every worker; DELIVERY_POLICY's by default. */
  caps?: ClaimLimits;
  /** When a host that gives no answer is left alone; DELIVERY_POLICY's by default. */
  breaker?: BreakerSettings;
  /** @default DELIVERY_POLICY.connectTimeoutMs */
  connectTimeoutMs?: number;
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
  /** Look for due deliveries now rather than at the next poll (a job with a webhook just ended). */
  poke(): void;
  /** Starts polling; does nothing after stop(). */
  start(): void;
  /** Stops polling and waits for the attempts in flight. */
  stop(): Promise<void>;
};

/** A new delivery of `body` for its first attempt at `now`, under a fresh webhook-id. */
export function newDelivery(
  delivery: { jobId: string; keyId: string; url: string; secret: string; body: string },
  now = Date.now(),
): NewDelivery {
  return { id: newWebhookId(), ...delivery, host: hostOf(delivery.url), nextAttemptAt: now, createdAt: now };
}

/**
 * Stores a delivery for its first attempt now; returns its webhook-id. The caller checked the URL with
 * checkWebhookUrl when the job was accepted; it is checked again before every attempt. A job's own webhook is
 * stored with the job's end instead (JobStore.transition), so neither can be written without the other.
 */
export async function enqueueWebhook(
  store: WebhookOutbox,
  delivery: { jobId: string; keyId: string; url: string; secret: string; body: string },
  now = Date.now(),
): Promise<string> {
  const d = newDelivery(delivery, now);
  await store.enqueue(d);
  return d.id;
}

/**
 * When a delivery an open breaker held back goes next: when the breaker lets it, or never once the whole retry
 * schedule's time has passed since it was made (it was never attempted, so it would otherwise wait forever).
 */
function waitForBreaker(d: ClaimedDelivery, notBefore: number): number | null {
  return notBefore <= d.createdAt + SCHEDULE_SPAN_MS ? notBefore : null;
}

type Outcome = { attempts: number; lastStatus: number | null; retryAt: number | null; delivered: boolean };

/**
 * What an attempt (or an attempt the breaker held back: `notBefore` > 0) means for its delivery: its count, its
 * last status, and when it goes next (null: never again), and the metric and log line that say so.
 */
function outcomeOf(
  d: ClaimedDelivery,
  result: SendResult,
  notBefore: number,
  at: number,
  random?: () => number,
): Outcome {
  // A delivery held back by an open breaker made no attempt: it keeps its count and its place in the schedule, and
  // goes when the breaker lets it (unless the whole schedule's time has passed since it was made).
  const skipped = notBefore > 0;
  const attempts = skipped ? d.attempts : d.attempts + 1;
  const delivered = isDelivered(result);
  const retryAt = skipped
    ? waitForBreaker(d, notBefore)
    : // A refused address will not become public by waiting, so it is not retried.
      delivered || result.refused
      ? null
      : nextRetryAt(attempts, at, random);
  const fields = { job_id: d.jobId, webhook_id: d.id, attempts, status: result.status };
  observeWebhook(
    delivered
      ? "delivered"
      : result.refused
        ? "refused"
        : retryAt === null
          ? "gave_up"
          : skipped
            ? "breaker_open"
            : "retry",
  );
  if (result.refused) log.warn("webhook refused; not retried", { ...fields, reason: result.refused });
  else if (!delivered && retryAt === null)
    log.warn("webhook not delivered; giving up", { ...fields, reason: result.error });
  else if (!delivered) log.info("webhook attempt failed; will retry", { ...fields, reason: result.error });
  return { attempts, lastStatus: skipped ? d.lastStatus : result.status, retryAt, delivered };
}

/**
 * One delivery's attempt, start to end: signed and sent unless the breaker of its key and host is open, recorded
 * under its lease, and told to the job runner. `scheduled` hears of each retry, so it runs on time.
 */
function createAttempter(opts: WebhookWorkerOptions, timeoutMs: number, scheduled: (retryAt: number) => void) {
  const now = opts.now ?? Date.now;
  const breaker = createHostBreaker(opts.breaker);

  const send = async (d: ClaimedDelivery): Promise<SendResult> => {
    const headers = signWebhook({ id: d.id, secret: d.secret, body: d.body, now: new Date(now()) });
    return withSpan("darkroom.webhook_send", { "darkroom.attempt": d.attempts + 1 }, async (span) => {
      try {
        const result = await sendWebhook({
          url: d.url,
          body: d.body,
          headers,
          allowHosts: opts.allowHosts,
          timeoutMs,
          connectTimeoutMs: opts.connectTimeoutMs,
          maxResponseBytes: opts.maxResponseBytes,
          resolve: opts.resolve,
        });
        if (result.status !== null) span.set("http.response.status_code", result.status);
        return result;
      } catch (err) {
        return { status: null, bytesRead: 0, error: describeError(err).error as string };
      }
    });
  };

  /** The attempt, or why it is not made: the breaker of its key and host is open. */
  const sendUnlessOpen = async (d: ClaimedDelivery): Promise<{ result: SendResult; notBefore: number }> => {
    const host = d.host || hostOf(d.url);
    const target = `${d.keyId}\n${host}`;
    const verdict = breaker.check(target, now());
    if (!verdict.allowed) {
      const error = `${host} gave no answer to ${verdict.failures} attempts in a row; its breaker is open`;
      const reason = `not sent: ${error} until ${new Date(verdict.until).toISOString()}`;
      // While a probe is out, the others wait until it has surely settled rather than spin on it.
      return {
        result: { status: null, bytesRead: 0, error, reason },
        notBefore: Math.max(verdict.until, now() + timeoutMs),
      };
    }
    const result = await send(d);
    // A refused attempt made no connection, so it says nothing of the host; if it was the probe, the next one probes.
    if (result.refused) breaker.release(target);
    else breaker.record(target, result.status !== null, now());
    return { result, notBefore: 0 };
  };

  return async (d: ClaimedDelivery): Promise<void> => {
    const { result, notBefore } = await sendUnlessOpen(d);
    const at = now();
    const { attempts, lastStatus, retryAt, delivered } = outcomeOf(d, result, notBefore, at, opts.random);
    const fields = { job_id: d.jobId, webhook_id: d.id, attempts, status: result.status };
    try {
      const recorded = await opts.store.recordAttempt(d.id, d.lease, { attempts, lastStatus, retryAt });
      if (!recorded) {
        log.warn("webhook lease ran out before the attempt was recorded", fields);
        return;
      }
      if (retryAt !== null) scheduled(retryAt);
    } catch (err) {
      // The lease runs out and the attempt is made again: at least once, not exactly once.
      log.warn("webhook attempt could not be recorded", { ...fields, ...describeError(err) });
      return;
    }
    try {
      await opts.onAttempt(d.jobId, {
        attempts,
        last_status: lastStatus,
        delivered_at: delivered ? new Date(at).toISOString() : null,
        ...(result.status === null && result.reason && { last_error: result.reason }),
      });
    } catch (err) {
      log.error("webhook onAttempt failed", { ...fields, ...describeError(err) });
    }
  };
}

/**
 * One timer for many reasons (the next poll, a retry this worker scheduled, a wake-up): it fires at the earliest
 * time it was given. It never keeps a process alive on its own.
 */
function earliestTimer(now: () => number, fire: () => void) {
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Number.POSITIVE_INFINITY;
  return {
    at(at: number) {
      if (timer && at >= timerAt) return;
      if (timer) clearTimeout(timer);
      timerAt = at;
      timer = setTimeout(
        () => {
          timer = undefined;
          timerAt = Number.POSITIVE_INFINITY;
          fire();
        },
        Math.max(0, at - now()),
      );
      timer.unref();
    },
    clear() {
      if (timer) clearTimeout(timer);
    },
  };
}

/** The worker's settings with their defaults; a lease no longer than an attempt is refused. */
function settingsOf(opts: WebhookWorkerOptions) {
  const settings = {
    now: opts.now ?? Date.now,
    pollMs: opts.pollMs ?? 5000,
    leaseMs: opts.leaseMs ?? 60_000,
    concurrency: opts.concurrency ?? DELIVERY_POLICY.concurrency,
    caps: opts.caps ?? CLAIM_LIMITS,
    timeoutMs: opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
  };
  if (settings.leaseMs <= settings.timeoutMs) {
    throw new Error("webhooks: leaseMs must be longer than an attempt's timeoutMs");
  }
  return settings;
}

/**
 * The polling loop: once started, `claim` runs at the earliest time asked for (every `pollMs` at the latest), one
 * run at a time; a wake-up during a run runs it again right after. A failed claim is logged, and the loop goes on.
 */
function pollLoop(now: () => number, pollMs: number, claim: () => Promise<unknown>) {
  const timer = earliestTimer(now, () => tick());
  let running = false;
  let stopped = false;
  let polling: Promise<void> | undefined;
  let again = false;

  const poll = async () => {
    if (stopped) return;
    try {
      await claim();
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

  function wakeAt(at: number) {
    if (running && !stopped) timer.at(at);
  }

  return {
    get stopped() {
      return stopped;
    },
    wakeAt,
    poke: () => wakeAt(now()),
    start() {
      if (running || stopped) return;
      running = true;
      tick();
    },
    /** Stops the loop and waits for the run in progress. */
    async stop() {
      stopped = true;
      timer.clear();
      await polling;
    },
  };
}

/** A worker that runs when told to (runDue, poke), and polls the outbox once started. */
export function createWebhookWorker(opts: WebhookWorkerOptions): WebhookWorker {
  const { now, pollMs, leaseMs, concurrency, caps, timeoutMs } = settingsOf(opts);
  // Retries this worker scheduled run on time, not at the next poll.
  const attempt = createAttempter(opts, timeoutMs, (retryAt) => loop.wakeAt(retryAt));
  const inflight = new Set<Promise<void>>();

  /** Claims as many due deliveries as there are free slots and starts them; returns the started attempts. */
  const claimAndStart = async (): Promise<Promise<void>[]> => {
    const free = concurrency - inflight.size;
    if (free <= 0 || loop.stopped) return [];
    const claimed = await opts.store.claimDue(now(), leaseMs, free, caps);
    return claimed.map((d) => {
      const p = attempt(d).finally(() => {
        inflight.delete(p);
        // A slot came free: more may be due.
        loop.poke();
      });
      inflight.add(p);
      return p;
    });
  };
  const loop = pollLoop(now, pollMs, claimAndStart);

  return {
    async runDue() {
      const started = await claimAndStart();
      await Promise.all(started);
      return started.length;
    },
    poke: loop.poke,
    start: loop.start,
    async stop() {
      await loop.stop();
      await Promise.all([...inflight]);
    },
  };
}
