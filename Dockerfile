# Family Shopping: the sync server with the built web app (docs/operations.md, "Container").
#
#   docker build -t family-shopping .
#   docker run -d -p 3000:3000 -v family-shopping-data:/data family-shopping
#
# Stages: `build` installs every dependency and builds the SDK and the web app (web/dist);
# `deps` installs the server's runtime dependencies only; the final stage holds those, the
# server's TypeScript sources (run by tsx, as `npm start` does) and web/dist.
#
# NODE_IMAGE: any Node 20 image on Debian bookworm (glibc) with npm and a `node` user (uid 1000),
# as the official images have. CI builds FROM one it makes with mmdebstrap (scripts/image-check.sh).
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# Build time only, for a network whose TLS is inspected by a proxy: a CA bundle file made
# available to RUN (e.g. `buildah bud -v host.pem:/run/ca.pem:ro --build-arg NODE_EXTRA_CA_CERTS=/run/ca.pem`).
ARG NODE_EXTRA_CA_CERTS
WORKDIR /src
COPY package.json package-lock.json ./
COPY client-sdk/package.json client-sdk/
COPY web/package.json web/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
# The install scripts skipped above (argon2 loads its prebuilt glibc addon; esbuild checks its
# binary), then the SDK (client-sdk/dist) and the web app (web/dist).
RUN npm rebuild argon2 esbuild \
 && node -e 'require("argon2")' \
 && npm run build

FROM ${NODE_IMAGE} AS deps
ARG NODE_EXTRA_CA_CERTS
WORKDIR /app
COPY package.json package-lock.json ./
COPY client-sdk/package.json client-sdk/
# The server imports neither RxDB nor the web app's packages (the web app is prebuilt): drop the
# web workspace, RxDB/RxJS and the SDK's peers from this install's manifest, re-derive the lock
# from the committed one (same versions) and install the production dependencies alone.
RUN npm pkg delete dependencies.rxdb dependencies.rxjs \
 && npm pkg set workspaces='["client-sdk"]' --json \
 && npm pkg delete peerDependencies -w client-sdk \
 && npm install --package-lock-only --ignore-scripts --no-audit --no-fund \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && node -e 'require("argon2")' \
 && find node_modules -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \
      -o -name '*.map' -o -name '*.tsbuildinfo' \) -delete \
 && rm -rf node_modules/@family-shopping

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY package.json tsconfig.json knexfile.ts ./
COPY client-sdk/package.json client-sdk/
COPY client-sdk/src client-sdk/src
COPY server server
COPY migrations migrations
COPY seeds seeds
COPY --from=build /src/web/dist web/dist
# The workspace link the server resolves `@family-shopping/client/protocol` through (its
# TypeScript sources, condition @family-shopping/source), and the data volume owned by `node`.
RUN mkdir -p node_modules/@family-shopping /data \
 && ln -s ../../client-sdk node_modules/@family-shopping/client \
 && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
# /healthz answers 200 while the process is up (docs/operations.md); HTTPS when TLS_CERT_FILE is set.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const t=!!process.env.TLS_CERT_FILE;require(t?'node:https':'node:http').get({host:'127.0.0.1',port:process.env.PORT||3000,path:'/healthz',rejectUnauthorized:false,timeout:4000},(r)=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))"]
# `npm start` without npm and tsx's own process in between: node is PID 1 and gets SIGTERM.
ENTRYPOINT []
CMD ["node", "--import", "tsx", "--conditions=@family-shopping/source", "server/main.ts"]
