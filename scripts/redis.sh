#!/usr/bin/env bash
# A real Redis server for the server's nodes (routing and fan-out between them) and their
# tests: Debian's `redis-server`, installed when missing and started on loopback (port
# $REDIS_PORT, 6379 by default) unless one answers there already. Prints the URL to use
# (`backalley serve --redis URL`, BACKALLEY_TEST_REDIS) on standard output; on failure prints
# why on standard error and exits 1, so that the caller can skip those tests with the reason.
set -euo pipefail
exec 3>&1 1>&2
PORT=${REDIS_PORT:-6379}
DIR=${REDIS_DIR:-/tmp/backalley-redis-$PORT}
if ! command -v redis-server >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || { echo "needs root to install redis-server" >&2; exit 1; }
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null) \
    || { echo "apt-get could not install redis-server" >&2; exit 1; }
fi
if ! redis-cli -p "$PORT" ping 2>/dev/null | grep -q PONG; then
  mkdir -p "$DIR"
  # Nothing is kept on disk: Redis only carries messages and short-lived keys between the
  # nodes; PostgreSQL holds the truth. The daemon must not keep the URL's pipe (fd 3) open:
  # a caller reading it as `$(bash scripts/redis.sh)` would wait for it for ever.
  redis-server --port "$PORT" --bind 127.0.0.1 --daemonize yes --save "" --appendonly no \
    --dir "$DIR" --logfile "$DIR/redis.log" --pidfile "$DIR/redis.pid" 3>&- \
    || { echo "redis-server did not start" >&2; exit 1; }
  for _ in $(seq 40); do redis-cli -p "$PORT" ping 2>/dev/null | grep -q PONG && break; sleep 0.25; done
  redis-cli -p "$PORT" ping 2>/dev/null | grep -q PONG \
    || { echo "redis-server did not answer on port $PORT: $(tail -n 3 "$DIR/redis.log" 2>/dev/null)" >&2; exit 1; }
fi
echo "redis://localhost:$PORT/0" >&3
