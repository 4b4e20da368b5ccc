# wisbridge as a container: `wisbridge run` with the journal on a volume.
#   docker build -t wisbridge .
#   docker run -d --name wisbridge --env-file /etc/wisbridge/secrets.env \
#     -v /etc/wisbridge:/etc/wisbridge:ro -v wisbridge-journal:/var/lib/wisbridge -p 127.0.0.1:9464:9464 wisbridge
# The configuration (/etc/wisbridge/wisbridge.yaml) must set `journal: /var/lib/wisbridge/journal.sqlite`,
# `mappings: /app/mappings` (or a mounted folder) and `metrics: { host: 0.0.0.0, port: 9464 }`.
# Two stages: `build` installs every dependency (esbuild included) and compiles src/ to dist/; the runtime stage
# gets only the production dependencies and dist/, no sources and no toolchain. test/service/image.test.ts runs the
# npm steps of both stages without docker.

FROM node:20-bookworm-slim AS build
# better-sqlite3 ships prebuilt binaries for this platform; the toolchain is only a fallback when none matches.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
COPY scripts ./scripts
COPY bin ./bin
COPY src ./src
# No NODE_ENV=production here: `npm ci` must install the dev dependencies, and its `prepare` script compiles
# src/ to dist/ with them. --ignore-scripts is not used: better-sqlite3 needs its install script.
RUN npm ci --no-audit --no-fund
# Fail the build when no compiled bridge came out, then drop the dev dependencies the runtime does not need.
RUN test -f dist/.built && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
# Heap caps (src/runtime/node-options.ts): keep RSS near the live data instead of letting garbage pile up.
ENV NODE_OPTIONS="--max-old-space-size=128 --max-semi-space-size=8"
# The production dependencies as installed (and, if need be, compiled) by the build stage, on the same base image.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bin ./bin
COPY --from=build /app/dist ./dist
COPY mappings ./mappings
COPY schemas ./schemas
COPY samples ./samples

RUN groupadd --system wisbridge && useradd --system --gid wisbridge --home-dir /var/lib/wisbridge --shell /usr/sbin/nologin wisbridge \
 && mkdir -p /var/lib/wisbridge /etc/wisbridge && chown wisbridge:wisbridge /var/lib/wisbridge
VOLUME ["/var/lib/wisbridge"]
USER wisbridge

EXPOSE 9464
# /healthz answers 200 while the bridge runs and 503 while it shuts down. Node's fetch avoids needing curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.WISBRIDGE_METRICS_PORT || 9464) + '/healthz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# docker stop sends SIGTERM and waits 10 s by default: use `docker stop -t 40` (or stop_grace_period: 40s in
# compose) so that shutdown_timeout_ms (30 s by default) fits.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "bin/wisbridge.js"]
CMD ["run", "--config", "/etc/wisbridge/wisbridge.yaml"]
