# syntax=docker/dockerfile:1
# The service's image: `docker build -t petstore .`, run by compose.yaml. Two stages: the first installs every
# dependency and compiles the TypeScript, the second keeps only what runs (the compiled dist/, the production
# dependencies, bin/ and package.json) and runs it as an unprivileged user.

FROM node:20-bookworm-slim AS build
# better-sqlite3 compiles its native module (.prebuild-installrc: no prebuilt binary is downloaded).
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# Dependencies first, in their own layer: a change to the code does not download them again.
COPY package.json package-lock.json .prebuild-installrc ./
COPY sdk/package.json sdk/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY sdk sdk
COPY src src
COPY bin bin
COPY scripts/bundle.mjs scripts/
# The commit being built, for petstore_build_info (the build context has no .git): docker build --build-arg
# PETSTORE_REVISION=$(git rev-parse --short=12 HEAD) …; unknown otherwise.
ARG PETSTORE_REVISION=unknown
RUN npm rebuild better-sqlite3 && PETSTORE_REVISION=$PETSTORE_REVISION npm run build \
    && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
# The memory settings `npm start` and bin/petstore.js give node (see bin/petstore.js), for `node` run directly.
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    NODE_OPTIONS="--max-semi-space-size=4 --max-old-space-size=128" \
    PETSTORE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    MESSAGES_PORT=8081 \
    DATABASE_URL=file:/var/lib/petstore/petstore.db
RUN groupadd --system petstore && useradd --system --gid petstore --home-dir /var/lib/petstore --shell /usr/sbin/nologin petstore \
    && mkdir -p /var/lib/petstore && chown petstore:petstore /var/lib/petstore
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/bin bin
# SQLite's file (when DATABASE_URL is not PostgreSQL) and the mail outbox live here; nothing else is written.
VOLUME /var/lib/petstore
USER petstore
EXPOSE 8080 8081
# Ready means the database answers. The image has no curl: node's own fetch asks.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and gets SIGTERM itself (no shell in between); the server drains and exits on it.
STOPSIGNAL SIGTERM
# --create: the first start makes the database in the volume, at the image's DATABASE_URL.
CMD ["node", "bin/petstore.js", "serve", "--create"]
