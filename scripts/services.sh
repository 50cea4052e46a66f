#!/usr/bin/env bash
# Makes sure PostgreSQL and Redis answer on 127.0.0.1. Starts the local ones when they are
# installed but stopped; otherwise says how to run them with Docker Compose. Installs PgBouncer
# and HAProxy, which some suites start privately, when missing and apt-get may run.
set -euo pipefail

PG_HOST=127.0.0.1
PG_PORT=5432
REDIS_PORT=6379

pg_up() { pg_isready -q -h "$PG_HOST" -p "$PG_PORT" 2>/dev/null || (exec 3<>"/dev/tcp/$PG_HOST/$PG_PORT") 2>/dev/null; }
redis_up() {
  if command -v redis-cli >/dev/null 2>&1; then
    [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = "PONG" ]
  else
    (exec 3<>"/dev/tcp/127.0.0.1/$REDIS_PORT") 2>/dev/null
  fi
}

wait_for() {
  local name=$1 check=$2
  for _ in $(seq 1 30); do
    if $check; then return 0; fi
    sleep 1
  done
  echo "services: $name did not come up on 127.0.0.1" >&2
  return 1
}

docker_hint() {
  echo "services: $1 is not running and is not installed here." >&2
  echo "services: start the services with 'docker compose up -d postgres redis', then run this again." >&2
  exit 1
}

if ! pg_up; then
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    echo "services: starting PostgreSQL $version"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start || sudo -n pg_ctlcluster "$version" main start
  elif command -v pg_ctl >/dev/null 2>&1 && [ -n "${PGDATA:-}" ]; then
    echo "services: starting PostgreSQL from $PGDATA"
    pg_ctl -D "$PGDATA" -l "$PGDATA/server.log" start
  else
    docker_hint PostgreSQL
  fi
  wait_for PostgreSQL pg_up
fi

if ! redis_up; then
  if command -v redis-server >/dev/null 2>&1; then
    echo "services: starting Redis"
    mkdir -p /tmp/rms-redis
    redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no \
      --dir /tmp/rms-redis --logfile /tmp/rms-redis/redis.log
  else
    docker_hint Redis
  fi
  wait_for Redis redis_up
fi

# Debian installs both in /usr/sbin, which is not on every PATH.
installed() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ]; }

missing=()
for program in pgbouncer haproxy; do
  installed "$program" || missing+=("$program")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "services: installing ${missing[*]}"
    # Installation was possible, so a failure stops the run rather than skipping suites.
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; }; then
      echo "services: installing ${missing[*]} with apt-get failed" >&2
      exit 1
    fi
  else
    echo "services: ${missing[*]} not installed, and installing needs root and apt-get; the suites that start them are skipped" >&2
  fi
fi

echo "services: PostgreSQL and Redis are up"
