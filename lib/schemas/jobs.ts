// Async jobs: the 202 answer and the job record, as documented (the runner's own types are in lib/jobs/types.ts).
import { z } from "zod";

export const jobAcceptedSchema = z
  .object({
    success: z.literal(true),
    id: z.string().regex(/^job_[a-f0-9]{32}$/),
    status: z.literal("queued"),
    status_url: z.url().meta({ description: "GET it for the job record." }),
    events_url: z.url().meta({ description: "GET it for a text/event-stream of the job's progress." }),
  })
  .meta({ id: "JobAccepted" });

export const jobProgressSchema = z
  .object({
    fraction: z.number().min(0).max(1).nullable().meta({ description: "Share done, where the engine can tell." }),
    queue_position: z.int().min(1).nullable().meta({ description: "While waiting: 1 = next to start." }),
    stage: z.string().meta({ description: "What is happening, e.g. waiting, bfl: pending, enhancing." }),
  })
  .meta({ id: "JobProgress" });

export const jobSchema = z
  .object({
    success: z.literal(true),
    id: z.string(),
    kind: z.enum(["generate", "enhance"]),
    status: z.enum(["queued", "running", "succeeded", "failed", "canceled"]),
    created_at: z.iso.datetime(),
    started_at: z.iso.datetime().optional(),
    finished_at: z.iso.datetime().optional(),
    progress: jobProgressSchema,
    result: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: "Exactly the 200 body the synchronous call would have given." }),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
    webhook: z
      .object({
        attempts: z.int().min(0),
        last_status: z.int().nullable(),
        delivered_at: z.iso.datetime().nullable(),
        last_error: z.string().optional().meta({
          description:
            "Why the last attempt got no answer or was not made: the URL refused, the host's breaker open, a timeout. Absent after an answer.",
        }),
      })
      .optional()
      .meta({ description: "Delivery of the job's webhook, when one was asked for." }),
  })
  .meta({ id: "Job" });
