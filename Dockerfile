# Darkroom's container image (docs/docker.md).
#   docker build -t darkroom .
#   docker run -p 3000:3000 -v darkroom-data:/data --stop-timeout 35 darkroom
# BASE is any Debian bookworm image with Node 20+ and npm at /usr/local (the tests build their own, offline).
ARG BASE=node:20-bookworm-slim

# ---- build: every dependency, the Next build, then only what runs ----
FROM ${BASE} AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1 \
    ONNXRUNTIME_NODE_INSTALL=skip \
    npm_config_nodedir=/usr/local \
    npm_config_update_notifier=false
# better-sqlite3 compiles from source where its prebuilt binary cannot be downloaded (node-gyp: python3, make, g++;
# the headers come from the base image's /usr/local/include/node, so nothing is fetched from nodejs.org).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY . .
# Then only what runs is kept: not the build cache, Next's compilers (builds and dev only), source maps, other
# platforms' ONNX Runtime binaries, better-sqlite3's sources and objects, or @tensorflow/tfjs (a peer dependency of
# the @upscalerjs model packages, whose weight files are all the app reads: lib/enhance/neural converts them to ONNX).
# Last, the server must find this build of these sources at start (lib/ops/build.ts hashes them), or it would try
# to rebuild.
RUN mkdir -p public \
 && npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf .builds/*/cache node_modules/@next/swc-* node_modules/@tensorflow node_modules/core-js \
 && find node_modules .builds -name '*.map' -type f -delete \
 && find node_modules/onnxruntime-node/bin -mindepth 3 -maxdepth 3 ! -path '*/linux/x64' -exec rm -rf {} + \
 && rm -rf node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
           node_modules/better-sqlite3/build/Release/obj* node_modules/better-sqlite3/build/Release/.deps \
 && node --import tsx -e 'const { hashSources, distDirFor } = require("./lib/ops/build.ts"); \
      const done = require("node:path").join(distDirFor(hashSources(".")), "darkroom-complete.json"); \
      if (!require("node:fs").existsSync(done)) { console.error("no build of these sources"); process.exit(1); }'

# ---- runtime: node, the production dependencies, the build and the sources server.ts runs ----
FROM ${BASE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    PORT=3000 \
    DATA_DIR=/data \
    DARKROOM_ROOT=/app
RUN groupadd --system --gid 10001 darkroom \
 && useradd --system --uid 10001 --gid darkroom --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin darkroom \
 && mkdir -p /data \
 && chown darkroom:darkroom /data
# The sources are hashed at start to find their build (lib/ops/build.ts), so they come as they were built.
COPY --from=build /app/package.json /app/package-lock.json /app/next.config.js /app/tsconfig.json \
     /app/tsconfig.next.json /app/postcss.config.mjs /app/proxy.ts /app/instrumentation.ts /app/server.ts \
     /app/worker.ts ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/app ./app
COPY --from=build /app/components ./components
COPY --from=build /app/lib ./lib
COPY --from=build /app/public ./public
COPY --from=build /app/scripts ./scripts
COPY --from=build /app/docs ./docs
# The calibration photos: the int8 models are made from them on first use and cached under DATA_DIR/models.
COPY --from=build /app/assets ./assets
COPY --from=build /app/.builds ./.builds
# Next may write its incremental cache into the build folder; nothing else under /app is writable.
RUN for b in .builds/*/; do mkdir -p "$b/cache" && chown darkroom:darkroom "$b/cache"; done
USER darkroom
VOLUME ["/data"]
EXPOSE 3000
# Liveness only (GET /api/health); the server listens on PORT on every interface unless LISTEN_HOST says otherwise.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/api/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM drains: no new connections, in-flight requests and jobs finish (SHUTDOWN_GRACE_MS, default 30 s), what still
# runs is stopped and refunded (up to 5 s more), then exit. Give `docker stop` that long (--stop-timeout /
# stop_grace_period); Docker's default is 10 s.
STOPSIGNAL SIGTERM
CMD ["node", "--import", "tsx", "server.ts"]
