// Runs accepted jobs in the background and keeps their records true: queue position, progress, the terminal
// state, a lease this instance renews while alive, and a sweep that fails (and refunds) the jobs of instances that
// died. Any instance can read or cancel any job; the instance running it notices a cancel within a poll.
import crypto from "node:crypto";
import type { WorkProgress } from "@/lib/engines/types";
import { WorkAborted } from "@/lib/errors";
import type { DeliveryOf, JobPatch, JobStore } from "@/lib/jobs/store";
import { describeError, log } from "@/lib/log";
import { observeAsyncJob } from "@/lib/metrics";
import type { Drain } from "@/lib/ops/drain";
import type { HeldUnit } from "@/lib/quota/types";
import { ACTIVE_STATUSES, isFinished, type JobKind, type JobRecord } from "./types";

export type JobContext = {
  signal: AbortSignal;
  /** Called when the work leaves the queue; throws WorkAborted when the job was cancelled meanwhile. */
  begin: () => Promise<void>;
  onQueued: (position: number) => void;
  onProgress: (progress: WorkProgress) => void;
  /** Gives back `count` of the `of` equal units the job holds (images that failed while others were made). */
  giveBack: (count: number, of: number) => Promise<void>;
};
export type JobWork = (ctx: JobContext) => Promise<Record<string, unknown>>;

export type JobRunnerOptions = {
  jobs: JobStore;
  /** Gives held units of quota back (a queued job cancelled, a failure that is not the caller's doing). */
  refund: (units: HeldUnit[]) => Promise<void>;
  /** The contract's code and message for a failure. */
  describeFailure: (err: unknown, jobId: string) => { code: string; message: string };
  /**
   * The webhook delivery a job's end makes, written with the end in one store write; undefined for a job without
   * a webhook. A lookup that throws leaves the job unfinished, and the sweep ends it (with its delivery) later.
   */
  webhookFor?: (job: JobRecord) => Promise<DeliveryOf | undefined>;
  /** Hears every job this instance or its sweep finished (usage history, waking the webhook worker). */
  onFinished?: (job: JobRecord) => void;
  /**
   * How long an instance's claim on its jobs lasts without renewal; a dead instance's jobs fail after it.
   * @default 60_000
   */
  leaseMs?: number;
  /**
   * False when another system owns the jobs' lives (the BullMQ work tier: its stalled-job check hands a dead worker's
   * job to another): records then carry no lease to renew, and the sweep never ends them.
   * @default true
   */
  leased?: boolean;
  /** @default 250 */
  pollMs?: number;
  /** The process's drain: counts each job in flight, and stops the ones still running when the grace is over. */
  drain?: Drain;
};

type Active = {
  controller: AbortController;
  writes: Promise<unknown>;
  lastProgressAt: number;
  /** The newest progress not written yet, and the timer that will write it. */
  pending?: WorkProgress;
  flush?: NodeJS.Timeout;
};

const PROGRESS_EVERY_MS = 200;

/** The lease of a job whose life another system owns (see `leased`): it never lapses. */
const NO_LEASE = Number.MAX_SAFE_INTEGER;

export function newJobId(): string {
  return `job_${crypto.randomBytes(16).toString("hex")}`;
}

export class JobRunner {
  readonly instance = `inst_${crypto.randomBytes(8).toString("hex")}`;
  private readonly active = new Map<string, Active>();
  private readonly leaseMs: number;
  private readonly leased: boolean;
  private readonly pollMs: number;
  private timers: NodeJS.Timeout[] = [];
  private sweeping = false;

  constructor(private readonly opts: JobRunnerOptions) {
    this.leaseMs = opts.leaseMs ?? 60_000;
    this.leased = opts.leased ?? true;
    this.pollMs = opts.pollMs ?? 250;
  }

  /** A new queued record for the caller; `units` are the quota it holds from now on. */
  newRecord(input: {
    kind: JobKind;
    owner: string;
    units: HeldUnit[];
    webhookUrl?: string;
    keyId?: string;
    plan?: "free" | "pro";
    model?: string;
    /** A synchronous request's job: its caller answers it and counts its usage. */
    sync?: boolean;
  }) {
    const record: JobRecord = {
      id: newJobId(),
      kind: input.kind,
      owner: input.owner,
      status: "queued",
      created_at: new Date().toISOString(),
      progress: { fraction: null, queue_position: null, stage: "queued" },
      ...(input.webhookUrl && { webhook: { attempts: 0, last_status: null, delivered_at: null } }),
      internal: {
        instance: this.instance,
        leaseUntil: this.leased ? Date.now() + this.leaseMs : NO_LEASE,
        units: input.units,
        ...(input.webhookUrl && { webhookUrl: input.webhookUrl }),
        ...(input.keyId && { keyId: input.keyId }),
        ...(input.plan && { plan: input.plan }),
        ...(input.model && { model: input.model }),
        ...(input.sync && { sync: true }),
      },
    };
    return record;
  }

  /** Stores the record, then runs the work in the background; the promise it returns settles when the job does. */
  async accept(record: JobRecord, work: JobWork): Promise<{ done: Promise<void> }> {
    await this.opts.jobs.create(record);
    const done = this.execute(record, work).then(() => undefined);
    return { done: this.opts.drain ? this.opts.drain.track(done) : done };
  }

  /**
   * Runs the work of a stored queued record here and keeps the record true; resolves with the record as the job
   * ended, or null when someone else ended it (a cancel, the sweep). A work tier's worker calls it for each job.
   * A failure that `requeueOn` accepts (every provider at capacity) does not end the job: its record goes back to
   * queued, units kept, and the error is thrown for the caller to queue the job again.
   */
  async execute(record: JobRecord, work: JobWork, requeueOn?: (err: unknown) => boolean): Promise<JobRecord | null> {
    this.startTimers();
    return this.run(record, work, requeueOn);
  }

  /**
   * Ends a job whose run was lost (its worker died more often than the retry limit allows): failed, with its units
   * given back and its webhook written, unless it already ended. Returns the failed record, or null.
   */
  async failLost(id: string, message: string): Promise<JobRecord | null> {
    const job = await this.opts.jobs.get(id);
    if (!job || isFinished(job.status)) return null;
    const failed = await this.endFailed(job, { code: "server_error", message });
    if (failed) {
      await this.refundQuietly(failed);
      this.finished(failed);
    }
    return failed;
  }

  /**
   * Cancels a job: a queued one is dropped and its units given back; a running one is stopped and keeps them.
   * Returns the record after the change, or the finished record untouched (the caller answers 409).
   */
  async cancel(id: string): Promise<JobRecord | null> {
    const finishedAt = new Date().toISOString();
    const patch = (stage: string): JobPatch => ({
      status: "canceled",
      finished_at: finishedAt,
      progress: { fraction: null, queue_position: null, stage },
    });
    const current = await this.opts.jobs.get(id);
    if (!current) return null;
    const deliveryOf = await this.opts.webhookFor?.(current);
    const dropped = await this.opts.jobs.transition(id, ["queued"], patch("canceled while waiting"), deliveryOf);
    if (dropped) {
      this.active.get(id)?.controller.abort(new WorkAborted());
      await this.refundQuietly(dropped);
      this.finished(dropped);
      return dropped;
    }
    const stopped = await this.opts.jobs.transition(id, ["running"], patch("canceled while running"), deliveryOf);
    if (stopped) {
      this.active.get(id)?.controller.abort(new WorkAborted());
      this.finished(stopped);
      return stopped;
    }
    return this.opts.jobs.get(id);
  }

  private async run(
    record: JobRecord,
    work: JobWork,
    requeueOn: (err: unknown) => boolean = () => false,
  ): Promise<JobRecord | null> {
    const controller = new AbortController();
    const entry: Active = { controller, writes: Promise.resolve(), lastProgressAt: 0 };
    this.active.set(record.id, entry);
    // A shutdown past its grace stops the job like a failure: it is marked failed and its units go back.
    const stopping = this.opts.drain?.stopping;
    const stop = () => controller.abort(stopping?.reason);
    if (stopping?.aborted) stop();
    stopping?.addEventListener("abort", stop, { once: true });
    const write = (from: readonly JobRecord["status"][], patch: JobPatch, deliveryOf?: DeliveryOf) => {
      const next = entry.writes.then(() => this.opts.jobs.transition(record.id, from, patch, deliveryOf));
      entry.writes = next.catch((err) => log.warn("job update failed", { job_id: record.id, ...describeError(err) }));
      return next;
    };
    try {
      const result = await work({
        signal: controller.signal,
        begin: async () => {
          const started = await write(["queued"], {
            status: "running",
            started_at: new Date().toISOString(),
            progress: { fraction: null, queue_position: null, stage: "running" },
          });
          if (!started) throw new WorkAborted();
        },
        giveBack: async (count, of) => {
          const units = record.internal.units;
          const share = (units.length / of) * count;
          if (share <= 0) return;
          // The record keeps only what is still held before anything goes back, so a later failure or the sweep
          // refunds the rest and never these units again. Null: cancelled or swept meanwhile, which settled them all.
          const kept = units.slice(0, units.length - share);
          const written = await write(ACTIVE_STATUSES, { internal: { units: kept } });
          if (!written) return;
          record.internal.units = kept;
          await this.opts.refund(units.slice(units.length - share));
        },
        onQueued: (position) => {
          void write(["queued"], { progress: { fraction: null, queue_position: position, stage: "waiting" } });
        },
        onProgress: (progress) => {
          // At most one write per PROGRESS_EVERY_MS, and the newest update always lands (trailing edge).
          entry.pending = progress;
          if (entry.flush) return;
          const flush = () => {
            entry.flush = undefined;
            const latest = entry.pending;
            if (!latest) return;
            entry.pending = undefined;
            entry.lastProgressAt = Date.now();
            void write(["running"], { progress: { ...latest, queue_position: null } });
          };
          const wait = entry.lastProgressAt + PROGRESS_EVERY_MS - Date.now();
          if (wait <= 0) flush();
          else entry.flush = setTimeout(flush, wait);
        },
      });
      clearTimeout(entry.flush);
      const done = await write(
        ACTIVE_STATUSES,
        {
          status: "succeeded",
          finished_at: new Date().toISOString(),
          result,
          progress: { fraction: 1, queue_position: null, stage: "done" },
        },
        await this.opts.webhookFor?.(record),
      );
      if (done) this.finished(done);
      return done;
    } catch (err) {
      clearTimeout(entry.flush);
      await entry.writes;
      if (!stopping?.aborted && requeueOn(err)) {
        const requeued = await write(["running", "queued"], {
          status: "queued",
          progress: { fraction: null, queue_position: null, stage: "waiting: providers at capacity" },
        });
        // Null: cancelled or swept meanwhile, and whoever did that settled the units.
        if (requeued) throw err;
        return null;
      }
      return await this.failRun(record, stopping?.aborted ? stopping.reason : err);
    } finally {
      stopping?.removeEventListener("abort", stop);
      this.active.delete(record.id);
    }
  }

  /** Ends a run that threw: failed with its units given back, unless someone else ended it meanwhile. */
  private async failRun(record: JobRecord, reason: unknown): Promise<JobRecord | null> {
    const failure = this.opts.describeFailure(reason, record.id);
    const failed = await this.endFailed(record, failure).catch((e) => {
      log.error("job could not be marked failed", { job_id: record.id, ...describeError(e) });
      return null;
    });
    // Null: cancelled or swept meanwhile, and whoever did that settled the units.
    if (failed) {
      await this.refundQuietly(failed);
      this.finished(failed);
    }
    return failed;
  }

  /** Marks a job failed, with its webhook delivery in the same write. */
  private async endFailed(job: JobRecord, error: { code: string; message: string }): Promise<JobRecord | null> {
    const deliveryOf = await this.opts.webhookFor?.(job);
    return this.opts.jobs.transition(
      job.id,
      ACTIVE_STATUSES,
      {
        status: "failed",
        finished_at: new Date().toISOString(),
        error,
        progress: { fraction: null, queue_position: null, stage: "failed" },
      },
      deliveryOf,
    );
  }

  private finished(job: JobRecord) {
    observeAsyncJob(job.kind, job.status);
    try {
      this.opts.onFinished?.(job);
    } catch (err) {
      log.error("job finish hook failed", { job_id: job.id, ...describeError(err) });
    }
  }

  private async refundQuietly(job: JobRecord) {
    await this.opts
      .refund(job.internal.units)
      .catch((err) => log.error("job refund failed", { job_id: job.id, ...describeError(err) }));
  }

  /** Polls this instance's jobs for cancels made elsewhere, renews their lease, and sweeps dead instances' jobs. */
  private startTimers() {
    if (this.timers.length > 0) return;
    let lastRenew = Date.now();
    const poll = setInterval(() => {
      const renew = this.leased && Date.now() - lastRenew > this.leaseMs / 3;
      if (renew) lastRenew = Date.now();
      for (const [id, entry] of this.active) {
        void this.opts.jobs
          .get(id)
          .then(async (job) => {
            if (!job || isFinished(job.status)) return entry.controller.abort(new WorkAborted());
            if (renew) {
              await this.opts.jobs.transition(id, ACTIVE_STATUSES, {
                internal: { leaseUntil: Date.now() + this.leaseMs },
              });
            }
          })
          .catch((err) => log.warn("job poll failed", { job_id: id, ...describeError(err) }));
      }
    }, this.pollMs);
    const sweep = setInterval(() => void this.sweep(), Math.max(1000, this.leaseMs / 2));
    poll.unref();
    sweep.unref();
    this.timers = [poll, sweep];
    void this.sweep();
  }

  /** Fails the unfinished jobs whose instance stopped renewing its lease, gives their units back. */
  async sweep(now = Date.now()): Promise<number> {
    if (this.sweeping) return 0;
    this.sweeping = true;
    let swept = 0;
    try {
      for (const job of await this.opts.jobs.listExpired(now, 100)) {
        const failed = await this.endFailed(job, {
          code: "server_error",
          message: "The server running this job stopped. Please submit it again.",
        }).catch((err) => {
          // Left for the next sweep; the others go on.
          log.warn("job sweep could not end a job", { job_id: job.id, ...describeError(err) });
          return null;
        });
        if (!failed) continue;
        swept++;
        log.warn("job failed: its instance stopped", { job_id: job.id, instance: job.internal.instance });
        await this.refundQuietly(failed);
        this.finished(failed);
      }
      await this.opts.jobs.prune(now);
    } catch (err) {
      log.warn("job sweep failed", describeError(err));
    } finally {
      this.sweeping = false;
    }
    return swept;
  }

  /** Starts the sweep on an instance that has not accepted a job itself (it may still recover others'). */
  watch() {
    this.startTimers();
  }
}
