// Next.js configuration. Native modules stay external; the custom server (server.ts) is the entry point.
/** @type {import('next').NextConfig} */
module.exports = {
  // server.ts points this at .builds/<source hash>, so a rebuild never replaces a running server's build.
  distDir: process.env.DARKROOM_DIST_DIR || ".next",
  poweredByHeader: false,
  reactStrictMode: true,
  // Nothing uses next/image: with the optimizer off, /_next/image answers 404 instead of fetching and resizing
  // arbitrary local paths (or, if patterns were ever added, remote URLs) on anyone's behalf.
  images: { unoptimized: true, remotePatterns: [], localPatterns: [] },
  // The operator guides served by app/docs/guides/[slug] are read from docs/ at request time.
  outputFileTracingIncludes: { "/docs/guides/[slug]": ["./docs/*.md"] },
  serverExternalPackages: [
    "better-sqlite3",
    "sharp",
    "busboy",
    "onnxruntime-node",
    "ws",
    // One copy per process, shared by instrumentation.ts and every route.
    "prom-client",
    "@opentelemetry/api",
    // The work tier's queue client and its Redis driver (lib/tier): Node packages with Lua files read at run time.
    "bullmq",
    "ioredis",
  ],
  // No source maps for the server bundles: tsx (which runs server.ts) turns on Node's source-map support, and Node
  // then reads and keeps the map of every chunk it loads; the routes' maps (about 10 MB each, 175 MB in all) held
  // some 400 MB of the server's heap at rest. Browser bundles have none in production anyway.
  experimental: { turbopackSourceMaps: false },
  // Type checking runs once in `npm test` (tests/unit/typecheck.test.ts); `npm start` need not repeat it.
  // Next appends each distDir to its tsconfig's include; it gets a generated, git-ignored one that extends
  // tsconfig.json (written by lib/ops/build.ts), so builds never rewrite tracked files.
  typescript: { ignoreBuildErrors: true, tsconfigPath: "tsconfig.next.json" },
};
