// Readiness for load balancers (GET /api/ready): ready only when the store and the image storage answer, the enhance
// runtime has loaded, every model and every configured enhance mode has a route that can take work, and no work
// queue would refuse new work.
// Each check is bounded, so a hung dependency makes the answer "not ready", never a hung probe.

import { describeStorageProblem } from "@/lib/storage/health";
import type { ImageStorage } from "@/lib/storage/types";
import type { RouteState } from "./route-states";

export type ReadinessProbes = {
  /** True when the store answers (a cheap round trip). */
  store: () => Promise<boolean>;
  /** True when the image storage answers. */
  storage: () => Promise<boolean>;
  /** Why the enhance runtime is not ready, or null. */
  enhance: () => string | null;
  routes: RouteState[];
  /** Each configured enhance mode's steps and why each is out (null: it can take work). */
  enhanceChains: { mode: string; routes: { route: string; out: string | null }[] }[];
  queues: { name: string; running: number; queued: number; concurrency: number; maxQueued: number }[];
};

export type Readiness = { ready: boolean; reasons: string[] };

/** @default timeoutMs 2000 */
export async function checkReadiness(probes: ReadinessProbes, timeoutMs = 2000): Promise<Readiness> {
  let storageProblem = describeStorageProblem(null);
  const storageProbe = () =>
    probes.storage().catch((err: unknown) => {
      storageProblem = describeStorageProblem(err);
      return false;
    });
  const [store, storage] = await Promise.all([answers(probes.store, timeoutMs), answers(storageProbe, timeoutMs)]);
  const reasons: string[] = [];
  if (!store) reasons.push("The store does not answer.");
  if (!storage) reasons.push(storageProblem);
  const enhance = probes.enhance();
  if (enhance) reasons.push(enhance);
  const byModel = new Map<string, RouteState[]>();
  for (const r of probes.routes) byModel.set(r.model, [...(byModel.get(r.model) ?? []), r]);
  for (const [model, routes] of byModel) {
    if (routes.every((r) => r.ejected)) {
      reasons.push(`Every route of ${model} is failing or out: ${routes.map((r) => r.route).join(", ")}.`);
    }
  }
  for (const { mode, routes } of probes.enhanceChains) {
    if (routes.every((r) => r.out !== null)) {
      const why = routes.map((r) => `${r.route} (${r.out})`).join(", ");
      reasons.push(`Every route of the enhance mode ${mode} is out: ${why}.`);
    }
  }
  for (const q of probes.queues) {
    // Full: every slot busy and the waiting line at its bound, so new work would be answered busy.
    if (q.running >= q.concurrency && q.queued >= q.maxQueued) {
      reasons.push(`The ${q.name} queue is full (${q.running} running, ${q.queued} waiting).`);
    }
  }
  return { ready: reasons.length === 0, reasons };
}

async function answers(probe: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([probe().catch(() => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** True when the storage answers a real round trip (S3: HeadBucket); throws what is wrong otherwise. */
export async function storageAnswers(storage: ImageStorage): Promise<boolean> {
  await storage.check();
  return true;
}
