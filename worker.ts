// A worker of the work tier (`npm run worker`, with WORK_TIER=bullmq and REDIS_URL): the same composition root as
// server.ts without the HTTP edge. It takes jobs from the BullMQ queues, runs them (generation chains, enhancement on
// its worker pool, every route kind), and delivers their webhooks. On SIGTERM it stops taking jobs, lets the ones it
// runs finish within SHUTDOWN_GRACE_MS, hands back what still runs (another worker takes it), and exits 0.
import path from "node:path";
import { licenceLines } from "./lib/catalog/enhance-routes";
import { ConfigError, parseConfig } from "./lib/config";
import { workOf } from "./lib/features/jobs/work";
import { describeError, log } from "./lib/log";
import { createServices } from "./lib/services";
import { startConsumer } from "./lib/tier/consumer";
import { checkTierRedis } from "./lib/tier/redis";

async function main() {
  // The enhance worker pool finds its files from here, as in server.ts.
  process.env.DARKROOM_ROOT ??= path.resolve(__dirname);
  const config = parseConfig(process.env);
  const tier = config.tier;
  if (tier.kind !== "bullmq") {
    console.error(
      "darkroom worker: WORK_TIER is not bullmq; set WORK_TIER=bullmq and REDIS_URL (the same as the web instances') to run a worker",
    );
    process.exit(1);
  }
  try {
    await checkTierRedis(tier.redisUrl);
  } catch (err) {
    console.error(`darkroom worker: ${(err as Error).message}`);
    process.exit(1);
  }

  const svc = createServices(config);
  svc.storage.check().catch((err: unknown) => {
    console.error(`darkroom worker: the image storage (${svc.storage.kind}) cannot be used: ${(err as Error).message}`);
  });
  // Webhook deliveries of the jobs that end here go out from here too (any instance may claim them).
  svc.webhookWorker.start();
  const consumer = startConsumer({
    redisUrl: tier.redisUrl,
    concurrency: tier.concurrency,
    keyCap: tier.keyCap,
    stallLimit: tier.stallLimit,
    stallCheckMs: tier.stallCheckMs,
    jobs: svc.jobs,
    runner: svc.runner,
    temp: svc.storage.temp,
    workOf: (spec) => workOf(svc, spec),
  });
  for (const line of licenceLines(config.enhance.chains, config.enhance.faceRestorer)) {
    console.log(`darkroom worker: ${line}`);
  }
  console.log(`darkroom worker: ready as ${consumer.id} (${tier.concurrency} job(s) at once per queue)`);

  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`darkroom worker: ${signal}: finishing ${consumer.running()} job(s), taking no more…`);
    const { handedBack } = await consumer.drain(config.shutdownGraceMs);
    if (handedBack > 0) console.log(`darkroom worker: ${handedBack} job(s) handed back to the other workers`);
    await svc.webhookWorker.stop().catch((err: unknown) => log.warn("stopping webhooks failed", describeError(err)));
    await svc.backend.close().catch((err: unknown) => log.error("closing the store failed", describeError(err)));
    console.log("darkroom worker: drained; exiting");
    process.exit(0);
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error("darkroom worker: failed to start:", err instanceof Error ? err.message : err);
  process.exit(1);
});
