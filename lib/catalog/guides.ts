// The operator guides under docs/: one row per file, in the order the docs page lists them.
export interface Guide {
  slug: string;
  title: string;
  covers: string;
}

export const GUIDES: readonly Guide[] = [
  { slug: "configuration", title: "Configuration", covers: "every environment variable, its default and meaning" },
  {
    slug: "api",
    title: "API",
    covers: "plans, each endpoint, async jobs, webhooks, the image API and errors in prose",
  },
  { slug: "providers", title: "Providers", covers: "cloud providers, routes and fallback chains" },
  {
    slug: "gpus",
    title: "Run on your own GPU",
    covers: "ComfyUI and AUTOMATIC1111-compatible servers, workflows, pools",
  },
  {
    slug: "image-input",
    title: "Image input",
    covers: "image-to-image, inpainting, image_id, several images, output formats; which route takes what",
  },
  {
    slug: "openai-compatible",
    title: "OpenAI-compatible API",
    covers: "/v1 for the openai SDKs, the AI SDK, Open WebUI, LibreChat and AnythingLLM: fields, errors, streaming",
  },
  {
    slug: "mcp",
    title: "MCP server",
    covers: "/mcp for assistants and agents: the tools, results, progress and jobs, configuring clients",
  },
  { slug: "enhancement", title: "Enhancement engine", covers: "the super-resolution models, operator models, runtime" },
  { slug: "image-library", title: "Image library", covers: "image records, retention, deletes on Vercel Blob" },
  { slug: "production-backends", title: "Production backends", covers: "Redis and Vercel Blob instead of DATA_DIR" },
  {
    slug: "storage",
    title: "Image storage",
    covers: "local files, Vercel Blob or any S3-compatible bucket (R2, MinIO, Swift…), /cdn, lifecycle rules",
  },
  { slug: "self-hosting", title: "Self-hosted", covers: "one machine, or several instances behind a load balancer" },
  {
    slug: "scaling",
    title: "Scaling",
    covers: "the BullMQ work tier: web instances apart from workers, sizing, Redis",
  },
  { slug: "docker", title: "Docker and compose", covers: "the image, compose.yaml with Redis, replicas, draining" },
  { slug: "vercel", title: "Vercel", covers: "deploying on Vercel" },
  { slug: "console", title: "Operators' console", covers: "the console, its API and the operator commands" },
  { slug: "metrics-and-tracing", title: "Metrics and tracing", covers: "Prometheus metrics, traces, readiness" },
  { slug: "security", title: "Security", covers: "the content filter, and where each safeguard is described" },
  { slug: "benchmarks", title: "Benchmarks", covers: "npm run bench and its figures" },
];

export function guideBySlug(slug: string): Guide | undefined {
  return GUIDES.find((g) => g.slug === slug);
}
