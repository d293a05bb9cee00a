// Pushing job changes between instances, where the backend can (Redis pub/sub over REDIS_URL): every write of a job
// record announces the job's id, and each instance's watcher reads at once instead of at its next tick.
import { describeError, log } from "@/lib/log";
import type { JobStore } from "./store";

/** A backend's channel for job changes. */
export type JobChangeFeed = {
  /** Tells every instance that the job's record changed. */
  publish(id: string): Promise<void>;
  /**
   * Hears every instance's announcements. `onLive` says whether pushes arrive now (false while the connection is
   * down: the watcher then polls at its normal tick). Returns the function that stops listening.
   */
  subscribe(onChange: (id: string) => void, onLive: (live: boolean) => void): () => Promise<void>;
};

/** `store`, announcing each write on `feed`. An announcement that fails is logged; the watchers' tick covers it. */
export function announcingJobStore(store: JobStore, feed: Pick<JobChangeFeed, "publish">): JobStore {
  const announce = (id: string) =>
    feed.publish(id).catch((err) => log.warn("job changes: publish failed", { job_id: id, ...describeError(err) }));
  return {
    get: (id) => store.get(id),
    getMany: (ids) => store.getMany(ids),
    listExpired: (now, limit) => store.listExpired(now, limit),
    prune: (now) => store.prune(now),
    async create(job) {
      await store.create(job);
      await announce(job.id);
    },
    async transition(id, from, patch, deliveryOf) {
      const next = await store.transition(id, from, patch, deliveryOf);
      if (next) await announce(id);
      return next;
    },
  };
}
