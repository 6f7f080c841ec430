#!/usr/bin/env bash
# Print the URL of a local PostgreSQL server for botwars tests and benchmarks, installing
# (Debian: apt-get install -y postgresql) and starting one on 127.0.0.1 when none is running.
#
#   BOTWARS_PG_PORT  port to use            (default 55432)
#   BOTWARS_PG_DIR   data folder            (default /tmp/botwars-pg)
#
# Output: one line, postgresql+psycopg://botwars@127.0.0.1:PORT/botwars  (trust auth, loopback only)
# Exit status 1 with a reason on stderr when PostgreSQL cannot be installed or started.
set -euo pipefail
PORT="${BOTWARS_PG_PORT:-55432}"
DIR="${BOTWARS_PG_DIR:-/tmp/botwars-pg}"
URL="postgresql+psycopg://botwars@127.0.0.1:${PORT}/botwars"
die() { echo "ensure-postgres: $*" >&2; exit 1; }

exec 9>"/tmp/botwars-pg-${PORT}.lock"
flock -w 120 9 || die "timed out waiting for the lock"

bindir() {
  if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then pg_config --bindir; return; fi
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1
}
BIN="$(bindir || true)"
if [ -z "$BIN" ] || [ ! -x "$BIN/initdb" ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    die "PostgreSQL is not installed and this user cannot install it (apt-get install -y postgresql)"; fi
  echo "ensure-postgres: installing postgresql (apt-get)" >&2
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2 \
    || { $SUDO apt-get update -q >&2 && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2; } \
    || die "apt-get install postgresql failed"
  BIN="$(bindir)"
fi

# initdb and postgres refuse to run as root: use the postgres system user then
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/sh postgres
  AS=(runuser -u postgres --)
else
  AS=()
fi

if "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT" 2>/dev/null; then
  echo "$URL"; exit 0
fi
if [ ! -s "$DIR/PG_VERSION" ]; then
  mkdir -p "$DIR"
  [ "$(id -u)" = 0 ] && chown postgres "$DIR"
  "${AS[@]}" "$BIN/initdb" -D "$DIR" -U botwars --auth=trust -E UTF8 >"$DIR.initdb.log" 2>&1 \
    || die "initdb failed (see $DIR.initdb.log)"
fi
"${AS[@]}" "$BIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -w -t 60 \
  -o "-p $PORT -k $DIR -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null 9>&- \
  || die "pg_ctl start failed (see $DIR/server.log)"
"$BIN/psql" -h 127.0.0.1 -p "$PORT" -U botwars -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='botwars'" \
  | grep -q 1 || "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U botwars botwars || die "createdb failed"
echo "$URL"
