// All environment configuration, validated once with one zod schema so a bad deploy fails at start.
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { ALL_ENHANCE_MODE_NAMES } from "@/lib/catalog/enhance-modes";
import { enhanceNeedOf, enhanceVariableOf, parseEnhanceChains } from "@/lib/catalog/enhance-routes";
import { MODEL_NAMES, MODELS, type ModelName } from "@/lib/catalog/models";
import { PROVIDER_ENV, PROVIDERS, type ProviderName } from "@/lib/catalog/providers";
import type { CapabilityEnv } from "@/lib/engines/capabilities";
import { type LocalEnv, pickWorkflowVars, readLocalSettings } from "@/lib/engines/local/settings";
import { type ProviderRouteEnv, resolveChains } from "@/lib/engines/routes";
import type { S3StorageOptions } from "@/lib/storage/s3";
import { normalizeHost } from "@/lib/webhooks/url";

const nonNegativeInt = (fallback: number) => z.coerce.number().int().min(0).max(1_000_000_000).default(fallback);
const atLeastOne = (fallback: number) => z.coerce.number().int().min(1).max(1_000_000_000).default(fallback);

/** Where parseConfig hands the schema the COMFYUI_WORKFLOW_<NAME> variables, whose names no schema can list. */
const WORKFLOW_FILES = "__comfyuiWorkflowFiles";
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v && v.trim() !== "" ? v.trim() : undefined));

/** MODEL_*_IMAGE and MODEL_*_MASK: `provider:model-id` entries naming the model a provider edits with. */
const EDIT_SUFFIXES = ["_IMAGE", "_MASK"] as const;

const envSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOSTNAME: optionalText,
    LISTEN_HOST: optionalText.pipe(
      z
        .string()
        .refine((v) => net.isIP(v) !== 0 || /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(v), {
          message: "LISTEN_HOST must be an IP address (e.g. 0.0.0.0, ::, 127.0.0.1) or a host name",
        })
        .optional(),
    ),
    DATA_DIR: optionalText,
    PUBLIC_CDN_URL: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
    TRUSTED_PROXIES: optionalText,
    KEY_PEPPER: optionalText.pipe(z.string().min(32, "KEY_PEPPER must be at least 32 characters").optional()),

    // A daily limit of 0 closes that door (no Free generations, no signups), which an operator may want.
    FREE_GENERATIONS_PER_DAY: nonNegativeInt(5),
    FREE_ENHANCEMENTS_PER_DAY: nonNegativeInt(5),
    PRO_REQUESTS_PER_DAY: nonNegativeInt(1000),
    // 0 would refuse every status call, and the pages read the models and limits from it.
    STATUS_CALLS_PER_MINUTE: atLeastOne(60),
    WAITLIST_SIGNUPS_PER_DAY: nonNegativeInt(20),
    // Signups per UTC day from everyone together; 0 turns the cap off.
    WAITLIST_SIGNUPS_GLOBAL_PER_DAY: nonNegativeInt(1000),
    // 0 turns a global cap off.
    FREE_GLOBAL_GENERATIONS_PER_DAY: nonNegativeInt(1000),
    FREE_GLOBAL_ENHANCEMENTS_PER_DAY: nonNegativeInt(1000),

    // 0 would refuse every upload as too large.
    MAX_UPLOAD_BYTES: atLeastOne(10 * 1024 * 1024),
    MAX_INFLIGHT_UPLOAD_BYTES: z.coerce
      .number()
      .int()
      .min(1024 * 1024)
      .max(64 * 1024 * 1024 * 1024)
      .default(128 * 1024 * 1024),
    // Deadlines on upload bodies: without a byte for this long, or in all, the upload is answered 408.
    UPLOAD_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
    UPLOAD_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
    GENERATE_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
    GENERATE_QUEUE: z.coerce.number().int().min(0).max(10_000).default(64),
    ENHANCE_WORKERS: z.coerce.number().int().min(1).max(64).optional(),
    ENHANCE_CONCURRENCY: z.coerce.number().int().min(1).max(64).optional(),
    ENHANCE_QUEUE: z.coerce.number().int().min(0).max(10_000).default(8),
    // Edit inputs (image and mask) decoded at once / waiting: each decode holds up to its pixels in memory.
    DECODE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
    DECODE_QUEUE: z.coerce.number().int().min(0).max(10_000).default(8),
    // Calls one ComfyUI or AUTOMATIC1111 server holds at once, counted across every worker on the work tier; a call
    // beyond it waits for a free server. Unset: no cap (each server queues what it is sent).
    GPU_SERVER_CONCURRENCY: z.coerce.number().int().min(1).max(256).optional(),
    // MiB of image data held at once: upload bytes as they arrive, and each decode's input and output pixels.
    // Unset, derived from the machine's memory (pixelBudgetOf).
    PIXEL_BUDGET_MB: z.coerce.number().int().min(64).max(1_048_576).optional(),
    ENHANCE_MODEL_PATH: optionalText,
    ENHANCE_DEVICE: z.enum(["cpu", "cuda"]).default("cpu"),
    // int8 or fp32 for the embedded models; unset, each model's default (lib/enhance/precision.ts).
    ENHANCE_PRECISION: optionalText.pipe(z.enum(["int8", "fp32"]).optional()),
    ENHANCE_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
    // Each enhance mode's fallback chain (lib/catalog/enhance-routes.ts); unset, the in-process defaults.
    ENHANCE_FAST: optionalText,
    ENHANCE_QUALITY: optionalText,
    ENHANCE_FACES: optionalText,
    ENHANCE_CREATIVE: optionalText,
    ENHANCE_FACE_RESTORER: optionalText.pipe(z.enum(["gfpgan", "codeformer"]).optional()),

    UPSTASH_REDIS_REST_URL: optionalText.pipe(z.url().optional()),
    UPSTASH_REDIS_REST_TOKEN: optionalText,
    // Your own Redis 6.2+ over TCP (TLS with rediss://): the same Redis backend as Upstash, another transport.
    REDIS_URL: optionalText.pipe(
      z.url({ protocol: /^rediss?$/, error: "REDIS_URL must be a redis:// or rediss:// URL" }).optional(),
    ),
    // How long one call to Redis (either transport) may take before the store counts as unavailable (503 busy).
    REDIS_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(1500),
    BLOB_READ_WRITE_TOKEN: optionalText,
    // Any S3-compatible bucket (docs/storage.md), through the AWS SDK's standard variables.
    S3_BUCKET: optionalText.pipe(
      z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{1,254}$/, "S3_BUCKET must be a bucket name (letters, digits, . _ -)")
        .optional(),
    ),
    S3_PREFIX: optionalText.pipe(
      z
        .string()
        .max(512)
        .refine((v) => !v.startsWith("/") && !v.includes(".."), "S3_PREFIX must not start with / or hold ..")
        .optional(),
    ),
    S3_FORCE_PATH_STYLE: optionalText.pipe(z.enum(["true", "false", "1", "0"]).optional()),
    AWS_REGION: optionalText,
    AWS_ENDPOINT_URL_S3: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
    AWS_ENDPOINT_URL: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
    AWS_ACCESS_KEY_ID: optionalText,
    AWS_SECRET_ACCESS_KEY: optionalText,
    AWS_SESSION_TOKEN: optionalText,
    // The SDK's own names; WHEN_SUPPORTED sends checksum headers that several non-AWS services reject.
    AWS_REQUEST_CHECKSUM_CALCULATION: optionalText.pipe(
      z.enum(["WHEN_REQUIRED", "WHEN_SUPPORTED", "when_required", "when_supported"]).optional(),
    ),
    VERCEL: optionalText,
    VERCEL_URL: optionalText,

    // Generation providers: MODEL_* routes, credentials and base-URL overrides (docs/providers.md).
    ...providerShape(),
    // How long an instance's claim on its async jobs lasts unrenewed; a dead instance's jobs fail after it.
    JOB_LEASE_MS: z.coerce.number().int().min(1000).max(600_000).default(60_000),
    // How long a running Idempotency-Key claim lasts unrenewed; a dead request's key is free (and its unit back)
    // after it. At most a minute, so that with the sweep's interval the contract's 2 minutes hold.
    IDEMPOTENCY_LEASE_MS: z.coerce.number().int().min(1000).max(60_000).default(30_000),
    GENERATION_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
    // On SIGTERM, how long in-flight requests and jobs may take to finish before what remains is stopped (and
    // refunded) and the process exits. At most 10 minutes: longer than any request's own deadline.
    SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
    // Where image work runs (docs/scaling.md): in the web process (inline, the default), or in `npm run worker`
    // processes fed by BullMQ queues on REDIS_URL (bullmq).
    WORK_TIER: optionalText.pipe(z.enum(["inline", "bullmq"]).default("inline")),
    // A worker process: how many jobs it runs at once, and how many times a job whose worker died is run again
    // before it fails (with its units given back).
    WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(4),
    WORK_STALL_LIMIT: z.coerce.number().int().min(0).max(20).default(2),
    // Jobs of one key (or one Free address) running at once across all workers, so that no caller holds them all.
    WORKER_KEY_CAP: z.coerce.number().int().min(1).max(256).default(2),
    // How often a worker proves it is alive; a job whose worker stops proving it goes to another after about this.
    WORK_STALL_CHECK_MS: z.coerce.number().int().min(1000).max(600_000).default(15_000),
    // Comma-separated host names (or addresses) webhooks may reach over http and on any address: local receivers.
    WEBHOOK_ALLOW_HOSTS: optionalText.pipe(
      z
        .string()
        .transform((v) => v.split(",").map(normalizeHost).filter(Boolean))
        .refine((hosts) => hosts.every((h) => net.isIP(h) !== 0 || /^[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?$/.test(h)), {
          message: "WEBHOOK_ALLOW_HOSTS must be comma-separated host names or IP addresses, without ports or schemes",
        })
        .optional(),
    ),

    // Local GPU servers (ComfyUI, AUTOMATIC1111-compatible); COMFYUI_WORKFLOW_<NAME> arrive under WORKFLOW_FILES.
    COMFYUI_URLS: optionalText,
    COMFYUI_SDXL_CHECKPOINT: optionalText,
    COMFYUI_FLUX_CHECKPOINT: optionalText,
    COMFYUI_AUTH_HEADER: optionalText,
    A1111_URLS: optionalText,
    A1111_AUTH: optionalText,
    [WORKFLOW_FILES]: z.record(z.string(), z.string()).default({}),

    // The operators' console (see lib/console): off unless a long enough token is set.
    ADMIN_TOKEN: optionalText.pipe(z.string().min(32, "ADMIN_TOKEN must be at least 32 characters").optional()),
    // GET /metrics: off (404) unless set; scrapers send it as a Bearer.
    METRICS_TOKEN: optionalText.pipe(z.string().min(16, "METRICS_TOKEN must be at least 16 characters").optional()),
    SMTP_URL: optionalText.pipe(z.url({ protocol: /^smtps?$/ }).optional()),
    MAIL_FROM: optionalText.pipe(z.string().max(320).regex(/@/, "MAIL_FROM must hold an email address").optional()),
    PUBLIC_APP_URL: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
    // 0 turns the usage history off.
    USAGE_HISTORY_DAYS: z.coerce.number().int().min(0).max(3660).default(90),

    // Days an image is kept; decimals allowed, 0 keeps images forever.
    IMAGE_RETENTION_DAYS: z.preprocess(
      // An empty value means the default, not 0 (which would keep every image forever).
      (v) => (typeof v === "string" && v.trim() === "" ? undefined : v),
      z.coerce.number().min(0).max(36_500).default(30),
    ),
    // Vercel Cron sends it as a Bearer token to /api/cron/sweep-images; unset, that route answers 404.
    CRON_SECRET: optionalText.pipe(z.string().min(16, "CRON_SECRET must be at least 16 characters").optional()),
    // Below this much free space on DATA_DIR, /api/status reports degraded; 0 turns the check off.
    MIN_FREE_DISK_MB: nonNegativeInt(512),
  })
  .superRefine((env, ctx) => {
    // A half-configured backend must stop start: silently using the embedded store would split quotas.
    if (Boolean(env.UPSTASH_REDIS_REST_URL) !== Boolean(env.UPSTASH_REDIS_REST_TOKEN)) {
      ctx.addIssue({
        code: "custom",
        path: [env.UPSTASH_REDIS_REST_URL ? "UPSTASH_REDIS_REST_TOKEN" : "UPSTASH_REDIS_REST_URL"],
        message: "set both UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN, or neither",
      });
    }
    // One Redis backend, one transport: two would split quotas between two databases.
    if (env.REDIS_URL && (env.UPSTASH_REDIS_REST_URL || env.UPSTASH_REDIS_REST_TOKEN)) {
      ctx.addIssue({
        code: "custom",
        path: ["REDIS_URL"],
        message: "set REDIS_URL or UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN, not both",
      });
    }
    // The work tier's queues need Redis over TCP (blocking reads, streams, Lua): the REST API cannot carry them.
    if (env.WORK_TIER === "bullmq" && !env.REDIS_URL) {
      ctx.addIssue({
        code: "custom",
        path: ["WORK_TIER"],
        message: env.UPSTASH_REDIS_REST_URL
          ? "WORK_TIER=bullmq needs REDIS_URL (a Redis over TCP); Upstash's REST API cannot carry BullMQ's queues. Use the database's redis:// or rediss:// URL, or leave WORK_TIER unset"
          : "WORK_TIER=bullmq needs REDIS_URL (a redis:// or rediss:// URL shared by the web instances and the workers)",
      });
    }
    // One image storage: two would leave each image in only one of them.
    if (env.S3_BUCKET && env.BLOB_READ_WRITE_TOKEN) {
      ctx.addIssue({
        code: "custom",
        path: ["S3_BUCKET"],
        message: "set S3_BUCKET or BLOB_READ_WRITE_TOKEN, not both",
      });
    }
    // Half a key pair would sign with the wrong secret, or silently with other credentials from the SDK's chain.
    if (env.S3_BUCKET && Boolean(env.AWS_ACCESS_KEY_ID) !== Boolean(env.AWS_SECRET_ACCESS_KEY)) {
      ctx.addIssue({
        code: "custom",
        path: [env.AWS_ACCESS_KEY_ID ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID"],
        message: "set both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or neither (to use the SDK's other sources)",
      });
    }
    // Half a mail setup would silently fall back to showing invitations in the console.
    if (Boolean(env.SMTP_URL) !== Boolean(env.MAIL_FROM)) {
      ctx.addIssue({
        code: "custom",
        path: [env.SMTP_URL ? "MAIL_FROM" : "SMTP_URL"],
        message: "set both SMTP_URL and MAIL_FROM to email invitations, or neither",
      });
    }
    // Instances that share a store must hash keys under the same secret; a per-machine generated pepper would
    // make keys created on one instance unknown to the others.
    if ((env.UPSTASH_REDIS_REST_URL || env.REDIS_URL || env.VERCEL === "1") && !env.KEY_PEPPER) {
      ctx.addIssue({
        code: "custom",
        path: ["KEY_PEPPER"],
        message:
          "set KEY_PEPPER (32+ random characters, the same on every instance) when using Redis, Upstash or Vercel",
      });
    }
    // A missing operator model must stop start, not fail every enhancement later.
    if (
      env.ENHANCE_MODEL_PATH &&
      !isFile(path.resolve(/*turbopackIgnore: true*/ process.cwd(), env.ENHANCE_MODEL_PATH))
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["ENHANCE_MODEL_PATH"],
        message: `no model file at ${env.ENHANCE_MODEL_PATH} (an ONNX super-resolution model: NCHW float32 RGB in [0, 1], dynamic height and width)`,
      });
    }
    // A bad GPU server URL or workflow file, like a malformed route, must stop start, not fail the first request.
    const local = readLocalOf(env);
    const chainIssues = resolveChains(modelValuesOf(env), providerEnvOf(env, local)).issues;
    const enhanceIssues = enhanceChainsOf(env, local).issues;
    for (const issue of [...local.issues, ...chainIssues, ...editOverrideIssues(env), ...enhanceIssues]) {
      ctx.addIssue({ code: "custom", path: [issue.variable], message: issue.message });
    }
  });

/** S3 storage when S3_BUCKET is set; credentials left unset use the SDK's chain (profiles, instance roles). */
function readS3Settings(env: z.infer<typeof envSchema>): S3StorageOptions | undefined {
  if (!env.S3_BUCKET) return undefined;
  const prefix = env.S3_PREFIX ?? "";
  const checksums = env.AWS_REQUEST_CHECKSUM_CALCULATION?.toUpperCase() as S3StorageOptions["checksums"];
  return {
    bucket: env.S3_BUCKET,
    region: env.AWS_REGION ?? "us-east-1",
    endpoint: env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL,
    forcePathStyle: env.S3_FORCE_PATH_STYLE === "true" || env.S3_FORCE_PATH_STYLE === "1",
    // A prefix names a folder: `darkroom` and `darkroom/` both keep images under darkroom/.
    prefix: prefix === "" || prefix.endsWith("/") ? prefix : `${prefix}/`,
    ...(env.AWS_ACCESS_KEY_ID &&
      env.AWS_SECRET_ACCESS_KEY && {
        credentials: {
          accessKeyId: env.AWS_ACCESS_KEY_ID,
          secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
          ...(env.AWS_SESSION_TOKEN && { sessionToken: env.AWS_SESSION_TOKEN }),
        },
      }),
    checksums: checksums ?? "WHEN_REQUIRED",
    publicBase: env.PUBLIC_CDN_URL?.replace(/\/+$/, ""),
  };
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(/*turbopackIgnore: true*/ file).isFile();
  } catch {
    return false;
  }
}

/** Enhance workers default to one per core, each with its share of the cores as ONNX Runtime threads. */
function readEnhanceSettings(env: z.infer<typeof envSchema>, local: ReturnType<typeof readLocalOf>) {
  const cores = os.availableParallelism();
  const workers = env.ENHANCE_WORKERS ?? cores;
  return {
    workers,
    threads: Math.max(1, Math.floor(cores / workers)),
    modelPath: env.ENHANCE_MODEL_PATH
      ? path.resolve(/*turbopackIgnore: true*/ process.cwd(), env.ENHANCE_MODEL_PATH)
      : undefined,
    device: env.ENHANCE_DEVICE,
    precision: env.ENHANCE_PRECISION,
    timeoutMs: env.ENHANCE_TIMEOUT_MS,
    chains: enhanceChainsOf(env, local).chains,
    faceRestorer: env.ENHANCE_FACE_RESTORER ?? "gfpgan",
  };
}

/**
 * ENHANCE_<MODE> parsed, with the problems found; a route needs its provider's key or its servers, and a workflow
 * route its workflow among the local settings already read (`local`).
 */
function enhanceChainsOf(env: z.infer<typeof envSchema>, local: ReturnType<typeof readLocalOf>) {
  const values = env as unknown as ProviderVars;
  const enhanceWorkflows = Object.keys(local.settings.comfyui?.enhanceWorkflows ?? {});
  return parseEnhanceChains(
    Object.fromEntries(ALL_ENHANCE_MODE_NAMES.map((m) => [enhanceVariableOf(m), textOf(values, enhanceVariableOf(m))])),
    (kind) => Boolean(textOf(values, enhanceNeedOf(kind))),
    enhanceWorkflows,
  );
}

// Parsed env values are read by name here, since the provider variables are generated from the catalogue.
type ProviderVars = Record<string, unknown>;
const textOf = (env: ProviderVars, name: string) => (typeof env[name] === "string" ? (env[name] as string) : undefined);

function providerShape() {
  const httpUrl = optionalText.pipe(z.url({ protocol: /^https?$/ }).optional());
  const shape: Record<string, typeof optionalText | typeof httpUrl> = {};
  for (const model of MODEL_NAMES) {
    shape[MODELS[model].env] = optionalText;
    for (const suffix of EDIT_SUFFIXES) shape[`${MODELS[model].env}${suffix}`] = optionalText;
  }
  for (const provider of PROVIDERS) {
    shape[PROVIDER_ENV[provider].key] = optionalText;
    shape[PROVIDER_ENV[provider].baseUrl] = httpUrl;
  }
  return shape;
}

function editOverridesOf(env: ProviderVars): CapabilityEnv["overrides"] {
  const overrides: NonNullable<CapabilityEnv["overrides"]> = {};
  for (const model of MODEL_NAMES) {
    for (const suffix of EDIT_SUFFIXES) {
      const value = textOf(env, `${MODELS[model].env}${suffix}`);
      if (!value) continue;
      const need = suffix === "_IMAGE" ? "image" : "mask";
      const byProvider: Record<string, string> = {};
      for (const entry of value.split(",").map((e) => e.trim())) {
        const colon = entry.indexOf(":");
        if (colon > 0 && colon < entry.length - 1) byProvider[entry.slice(0, colon)] = entry.slice(colon + 1);
      }
      overrides[model] = { ...overrides[model], [need]: byProvider };
    }
  }
  return overrides;
}

/** Each MODEL_*_IMAGE / MODEL_*_MASK entry must be `provider:model-id` for a provider the service knows. */
function editOverrideIssues(env: ProviderVars): { variable: string; message: string }[] {
  const issues: { variable: string; message: string }[] = [];
  for (const model of MODEL_NAMES) {
    for (const suffix of EDIT_SUFFIXES) {
      const variable = `${MODELS[model].env}${suffix}`;
      for (const entry of (textOf(env, variable) ?? "").split(",").map((e) => e.trim())) {
        if (entry === "") continue;
        const [provider, ...rest] = entry.split(":");
        if (!(PROVIDERS as readonly string[]).includes(provider) || !/^[\w./:-]+$/.test(rest.join(":"))) {
          issues.push({
            variable,
            message: `"${entry}" is not of the form provider:model-id (${PROVIDERS.join(", ")})`,
          });
        }
      }
    }
  }
  return issues;
}

function modelValuesOf(env: ProviderVars): Partial<Record<ModelName, string>> {
  return Object.fromEntries(MODEL_NAMES.map((m) => [m, textOf(env, MODELS[m].env)]));
}

function providerEnvOf(env: ProviderVars, local: ReturnType<typeof readLocalOf>): ProviderRouteEnv {
  const pick = (field: "key" | "baseUrl") =>
    Object.fromEntries(
      PROVIDERS.flatMap((p) => {
        const value = textOf(env, PROVIDER_ENV[p][field]);
        return value ? [[p, value]] : [];
      }),
    ) as Partial<Record<ProviderName, string>>;
  const { comfyui, a1111 } = local.settings;
  return {
    credentials: pick("key"),
    baseUrls: pick("baseUrl"),
    local: { comfyuiWorkflows: comfyui && Object.keys(comfyui.workflows), a1111: Boolean(a1111) },
  };
}

function readLocalOf(env: ProviderVars) {
  const names = [
    "COMFYUI_URLS",
    "COMFYUI_SDXL_CHECKPOINT",
    "COMFYUI_FLUX_CHECKPOINT",
    "COMFYUI_AUTH_HEADER",
    "A1111_URLS",
    "A1111_AUTH",
  ] as const;
  const vars = Object.fromEntries(names.map((n) => [n, textOf(env, n)])) as Omit<LocalEnv, "workflowFiles">;
  const workflowFiles = (env[WORKFLOW_FILES] ?? {}) as Record<string, string>;
  return readLocalSettings({ ...vars, workflowFiles }, /*turbopackIgnore: true*/ process.cwd());
}

/**
 * The address to bind: LISTEN_HOST, else HOSTNAME only when it is an IP address or "localhost". Docker sets
 * HOSTNAME to the container id, which is a name for the machine, not an address to listen on.
 */
function readListen(env: z.infer<typeof envSchema>): { host?: string; ignoredHostname?: string } {
  if (env.LISTEN_HOST) return { host: env.LISTEN_HOST };
  const hostname = env.HOSTNAME;
  if (!hostname) return {};
  if (net.isIP(hostname) !== 0 || hostname.toLowerCase() === "localhost") return { host: hostname };
  return { ignoredHostname: hostname };
}

const MIB = 1024 * 1024;

/**
 * The default pixel budget: a 160th of the memory this process may use (150 MiB on 23.5 GiB), within 128 MiB and
 * 4 GiB. Image work should take at most a sixteenth of the memory, and each byte the budget counts (a decode's input
 * and output once, an upload's bytes) costs up to about ten bytes of working memory while the image is enhanced:
 * the decoded input in shared memory, the network's output, the finish's sharpened and base images, the encoder's
 * buffers, and garbage not collected yet (about six measured by `npm run bench -- --memory-only`, four for margin).
 */
export function defaultPixelBudgetBytes(memoryBytes: number): number {
  return Math.min(4096 * MIB, Math.max(128 * MIB, Math.floor(memoryBytes / 160 / MIB) * MIB));
}

/** The memory this process may use: the machine's, or less where a cgroup (a container) limits it. */
export function processMemoryBytes(): number {
  const total = os.totalmem();
  // 0 or undefined when nothing constrains it; some versions report an unset limit as a huge number.
  const constrained = process.constrainedMemory?.() ?? 0;
  return constrained > 0 && constrained < total ? constrained : total;
}

/** The bounded queues, and the pixel budget every decode takes from (lib/work/pixel-budget.ts). */
function readWork(env: z.infer<typeof envSchema>) {
  // Jobs beyond the workers would only wait inside the pool, outside the bounded queue.
  const enhanceConcurrency = env.ENHANCE_CONCURRENCY ?? env.ENHANCE_WORKERS ?? os.availableParallelism();
  return {
    generateConcurrency: env.GENERATE_CONCURRENCY,
    generateQueue: env.GENERATE_QUEUE,
    enhanceConcurrency,
    enhanceQueue: env.ENHANCE_QUEUE,
    decodeConcurrency: env.DECODE_CONCURRENCY,
    decodeQueue: env.DECODE_QUEUE,
    gpuServerConcurrency: env.GPU_SERVER_CONCURRENCY,
    pixelBudget: {
      capacity: env.PIXEL_BUDGET_MB ? env.PIXEL_BUDGET_MB * MIB : defaultPixelBudgetBytes(processMemoryBytes()),
      // Decodes wait for room inside an enhance or decode slot, so at most those wait; one that waited as long as
      // an enhancement may run is refused busy.
      maxWaiting: enhanceConcurrency + env.DECODE_CONCURRENCY,
      maxWaitMs: env.ENHANCE_TIMEOUT_MS,
    },
  };
}

/** The work tier: inline, or BullMQ on REDIS_URL with each worker's settings. */
function readTier(env: z.infer<typeof envSchema>) {
  if (env.WORK_TIER !== "bullmq" || !env.REDIS_URL) return { kind: "inline" as const };
  return {
    kind: "bullmq" as const,
    redisUrl: env.REDIS_URL,
    concurrency: env.WORKER_CONCURRENCY,
    stallLimit: env.WORK_STALL_LIMIT,
    stallCheckMs: env.WORK_STALL_CHECK_MS,
    keyCap: env.WORKER_KEY_CAP,
  };
}

export type TierConfig = ReturnType<typeof readTier>;

export type Config = ReturnType<typeof buildConfig>;

function buildConfig(env: z.infer<typeof envSchema>) {
  const local = readLocalOf(env);
  return {
    port: env.PORT,
    listen: readListen(env),
    dataDir: path.resolve(/*turbopackIgnore: true*/ process.cwd(), env.DATA_DIR ?? ".data"),
    publicCdnUrl: env.PUBLIC_CDN_URL?.replace(/\/+$/, ""),
    trustedProxies: env.TRUSTED_PROXIES ?? "",
    keyPepper: env.KEY_PEPPER,
    limits: {
      freeGenerationsPerDay: env.FREE_GENERATIONS_PER_DAY,
      freeEnhancementsPerDay: env.FREE_ENHANCEMENTS_PER_DAY,
      proRequestsPerDay: env.PRO_REQUESTS_PER_DAY,
      statusCallsPerMinute: env.STATUS_CALLS_PER_MINUTE,
      waitlistSignupsPerDay: env.WAITLIST_SIGNUPS_PER_DAY,
      waitlistGlobalSignupsPerDay: env.WAITLIST_SIGNUPS_GLOBAL_PER_DAY,
      freeGlobalGenerationsPerDay: env.FREE_GLOBAL_GENERATIONS_PER_DAY,
      freeGlobalEnhancementsPerDay: env.FREE_GLOBAL_ENHANCEMENTS_PER_DAY,
    },
    upload: {
      maxBytes: env.MAX_UPLOAD_BYTES,
      maxPixels: 25_000_000,
      maxInflightBytes: env.MAX_INFLIGHT_UPLOAD_BYTES,
      idleTimeoutMs: env.UPLOAD_IDLE_TIMEOUT_MS,
      timeoutMs: env.UPLOAD_TIMEOUT_MS,
    },
    work: readWork(env),
    enhance: readEnhanceSettings(env, local),
    // The Redis backend: Upstash's REST API, or (REDIS_URL) any Redis over TCP, which needs no token
    // (lib/store/redis/client.ts picks the transport from the URL's scheme).
    upstash: env.REDIS_URL
      ? { url: env.REDIS_URL, token: "", timeoutMs: env.REDIS_TIMEOUT_MS }
      : env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN
        ? { url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN, timeoutMs: env.REDIS_TIMEOUT_MS }
        : undefined,
    blobToken: env.BLOB_READ_WRITE_TOKEN,
    s3: readS3Settings(env),
    // Vercel sets both at run time; VERCEL alone can be copied into any environment by mistake.
    onVercel: env.VERCEL === "1" && Boolean(env.VERCEL_URL),
    jobs: { leaseMs: env.JOB_LEASE_MS },
    idempotency: { leaseMs: env.IDEMPOTENCY_LEASE_MS },
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    tier: readTier(env),
    images: {
      retentionDays: env.IMAGE_RETENTION_DAYS,
      minFreeDiskMb: env.MIN_FREE_DISK_MB,
      cronSecret: env.CRON_SECRET,
    },
    generation: {
      timeoutMs: env.GENERATION_TIMEOUT_MS,
      chains: resolveChains(modelValuesOf(env), providerEnvOf(env, local)).chains,
      providers: providerEnvOf(env, local),
      local: local.settings,
      /** The operator's MODEL_*_IMAGE / MODEL_*_MASK edit models. */
      editOverrides: editOverridesOf(env),
    },
    webhookAllowHosts: env.WEBHOOK_ALLOW_HOSTS ?? [],
    admin: env.ADMIN_TOKEN ? { token: env.ADMIN_TOKEN } : undefined,
    metricsToken: env.METRICS_TOKEN,
    mail: env.SMTP_URL && env.MAIL_FROM ? { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM } : undefined,
    publicAppUrl: env.PUBLIC_APP_URL?.replace(/\/+$/, ""),
    usageHistoryDays: env.USAGE_HISTORY_DAYS,
  };
}

export class ConfigError extends Error {}

/** Parse an environment; throws ConfigError listing every bad variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const parsed = envSchema.safeParse({ ...env, [WORKFLOW_FILES]: pickWorkflowVars(env) });
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".") || "env"}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return buildConfig(parsed.data);
}

let cached: Config | undefined;

export function getConfig(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}
