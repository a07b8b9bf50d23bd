# shellcheck shell=bash
# Helpers for .ci/run: system packages, a throwaway PostgreSQL cluster and a
# throwaway Redis server. Source this file; it defines functions only.
#
# Everything lives under one temp dir ($CI_SVC_DIR) so that ci_services_stop
# (called from the EXIT trap in .ci/run) can stop both servers and remove it.
#
# Ports default to 54329 (PostgreSQL) and 63799 (Redis) so that servers the
# Debian packages may have auto-started on 5432/6379 never clash with ours.
# If a default port is busy, the next free one is used.

CI_PG_DB="${CI_PG_DB:-family_shopping_test}"
CI_PG_PORT="${CI_PG_PORT:-54329}"
CI_REDIS_PORT="${CI_REDIS_PORT:-63799}"
CI_SVC_DIR=""
CI_PG_BIN=""
CI_PG_STARTED=0
CI_REDIS_STARTED=0

ci_log() { printf '[ci] %s\n' "$*"; }

# --- system packages ---------------------------------------------------------

ci_pg_bindir() {
  # Highest installed PostgreSQL server version, e.g. /usr/lib/postgresql/15/bin
  local initdb
  initdb="$(ls -1d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1 || true)"
  [ -n "$initdb" ] && dirname "$initdb"
}

ci_apt_install() {
  # ci_apt_install PKG... : install with apt-get, running `apt-get update`
  # first only when the plain install fails. Waits for the dpkg lock.
  local apt=(apt-get -o DPkg::Lock::Timeout=900 -o APT::Acquire::Retries=3)
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
      ci_log "not root and no sudo: cannot install $*"; return 1
    fi
  fi
  ci_log "apt-get install $*"
  if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y --no-install-recommends "$@"; then
    ci_log "install failed; running apt-get update and retrying"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive "${apt[@]}" update
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y --no-install-recommends "$@"
  fi
}

ci_ensure_system_packages() {
  local missing=()
  if [ -z "$(ci_pg_bindir)" ]; then missing+=(postgresql); fi
  if ! command -v redis-server >/dev/null 2>&1; then missing+=(redis-server); fi
  if [ ! -x /usr/bin/chromium ]; then missing+=(chromium); fi
  # The TLS test makes its certificates with the openssl commands of docs/operations.md.
  if ! command -v openssl >/dev/null 2>&1; then missing+=(openssl); fi
  # The container image leg (scripts/image-check.sh): buildah (its chroot isolation needs no
  # runtime; uidmap and containers-common come as its dependencies) and mmdebstrap for the base.
  if ! command -v buildah >/dev/null 2>&1; then missing+=(buildah); fi
  if ! command -v mmdebstrap >/dev/null 2>&1; then missing+=(mmdebstrap); fi
  if [ "${#missing[@]}" -eq 0 ]; then
    ci_log "postgresql server ($(ci_pg_bindir)), redis-server and chromium already installed"
    return 0
  fi
  ci_apt_install "${missing[@]}"
  [ -n "$(ci_pg_bindir)" ] || { ci_log "PostgreSQL server binaries still missing"; return 1; }
  command -v redis-server >/dev/null 2>&1 || { ci_log "redis-server still missing"; return 1; }
  [ -x /usr/bin/chromium ] || { ci_log "chromium still missing"; return 1; }
  command -v buildah >/dev/null 2>&1 || { ci_log "buildah still missing"; return 1; }
  command -v mmdebstrap >/dev/null 2>&1 || { ci_log "mmdebstrap still missing"; return 1; }
}

# --- helpers -----------------------------------------------------------------

ci_port_busy() {
  # true when something accepts TCP connections on 127.0.0.1:$1
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

ci_free_port() {
  local port="$1" i
  for i in $(seq 0 50); do
    if ! ci_port_busy "$((port + i))"; then echo "$((port + i))"; return 0; fi
  done
  return 1
}

ci_as_pg() {
  # Run a command as the postgres OS user when root (initdb refuses root).
  if [ "$(id -u)" -eq 0 ]; then
    (cd / && runuser -u postgres -- "$@")
  else
    (cd / && "$@")
  fi
}

ci_services_dir() {
  if [ -z "$CI_SVC_DIR" ]; then
    CI_SVC_DIR="$(mktemp -d "${TMPDIR:-/tmp}/fs-ci-services.XXXXXX")"
    chmod 755 "$CI_SVC_DIR"
  fi
}

# --- PostgreSQL --------------------------------------------------------------

ci_pg_start() {
  CI_PG_BIN="$(ci_pg_bindir)"
  [ -n "$CI_PG_BIN" ] || { ci_log "no PostgreSQL server binaries found"; return 1; }
  ci_services_dir
  CI_PG_PORT="$(ci_free_port "$CI_PG_PORT")"
  local data="$CI_SVC_DIR/pgdata" sock="$CI_SVC_DIR/pgsock" log="$CI_SVC_DIR/postgres.log"
  mkdir -p "$data" "$sock"
  : >"$log"
  if [ "$(id -u)" -eq 0 ]; then chown -R postgres:postgres "$data" "$sock" "$log"; fi

  ci_log "initdb ($CI_PG_BIN) in $data"
  ci_as_pg "$CI_PG_BIN/initdb" -D "$data" -A trust -U postgres -E UTF8 --no-locale >"$CI_SVC_DIR/initdb.log" 2>&1 \
    || { cat "$CI_SVC_DIR/initdb.log"; return 1; }

  ci_log "starting PostgreSQL on 127.0.0.1:$CI_PG_PORT"
  CI_PG_STARTED=1
  if ! ci_as_pg "$CI_PG_BIN/pg_ctl" -D "$data" -l "$log" -w -t 60 \
      -o "-p $CI_PG_PORT -k $sock -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
      start; then
    ci_log "PostgreSQL failed to start; log follows"; cat "$log" || true
    return 1
  fi
  ci_as_pg "$CI_PG_BIN/createdb" -h 127.0.0.1 -p "$CI_PG_PORT" -U postgres "$CI_PG_DB"
  ci_as_pg "$CI_PG_BIN/psql" -h 127.0.0.1 -p "$CI_PG_PORT" -U postgres -d "$CI_PG_DB" -Atqc 'select version()'
  export CI_DATABASE_URL="postgres://postgres@127.0.0.1:$CI_PG_PORT/$CI_PG_DB"
}

ci_pg_stop() {
  [ "$CI_PG_STARTED" = 1 ] || return 0
  CI_PG_STARTED=0
  ci_log "stopping PostgreSQL"
  ci_as_pg "$CI_PG_BIN/pg_ctl" -D "$CI_SVC_DIR/pgdata" -m immediate -w -t 30 stop >/dev/null 2>&1 || {
    local pid
    pid="$(head -n 1 "$CI_SVC_DIR/pgdata/postmaster.pid" 2>/dev/null || true)"
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
  }
}

# --- Redis -------------------------------------------------------------------

ci_redis_ping() {
  if command -v redis-cli >/dev/null 2>&1; then
    [ "$(redis-cli -h 127.0.0.1 -p "$CI_REDIS_PORT" ping 2>/dev/null)" = PONG ]
  else
    ci_port_busy "$CI_REDIS_PORT"
  fi
}

ci_redis_start() {
  command -v redis-server >/dev/null 2>&1 || { ci_log "redis-server not installed"; return 1; }
  ci_services_dir
  CI_REDIS_PORT="$(ci_free_port "$CI_REDIS_PORT")"
  mkdir -p "$CI_SVC_DIR/redis"
  ci_log "starting redis-server on 127.0.0.1:$CI_REDIS_PORT"
  CI_REDIS_STARTED=1
  redis-server --port "$CI_REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
    --daemonize yes --dir "$CI_SVC_DIR/redis" \
    --pidfile "$CI_SVC_DIR/redis.pid" --logfile "$CI_SVC_DIR/redis.log"
  local i
  for i in $(seq 1 100); do
    if ci_redis_ping; then
      export CI_REDIS_URL="redis://127.0.0.1:$CI_REDIS_PORT"
      return 0
    fi
    sleep 0.1
  done
  ci_log "redis-server did not answer; log follows"; cat "$CI_SVC_DIR/redis.log" || true
  return 1
}

ci_redis_stop() {
  [ "$CI_REDIS_STARTED" = 1 ] || return 0
  CI_REDIS_STARTED=0
  ci_log "stopping redis-server"
  local pid
  pid="$(cat "$CI_SVC_DIR/redis.pid" 2>/dev/null || true)"
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    local i
    for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
}

# --- all ---------------------------------------------------------------------

ci_services_stop() {
  ci_redis_stop || true
  ci_pg_stop || true
  if [ -n "$CI_SVC_DIR" ]; then
    rm -rf "$CI_SVC_DIR" || true
    CI_SVC_DIR=""
  fi
}
