#!/usr/bin/env bash
# Make sure a throwaway PostgreSQL server answers on loopback for the tests and the benchmarks.
#
#   bash scripts/ensure-postgres.sh        # prints the DSN and writes it to var/postgres.dsn
#
# If a server already answers on 127.0.0.1:$DRIVABLE_PG_PORT (default 55432) with trust auth, it is
# reused. Otherwise Debian's `postgresql` package is installed when absent, a data directory is
# created under /tmp, initialised with trust auth on loopback only, and the server is started.
# Safe to call concurrently (flock) and repeatedly (idempotent). Nothing here is for production.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PORT="${DRIVABLE_PG_PORT:-55432}"
DATA="${DRIVABLE_PG_DATA:-/tmp/drivable-pg-${PORT}}"
DB="${DRIVABLE_PG_DB:-drivable_test}"
DSN_FILE="${ROOT}/var/postgres.dsn"
DSN="postgresql://postgres@127.0.0.1:${PORT}/${DB}"

mkdir -p "${ROOT}/var"
exec 9>"/tmp/drivable-pg-${PORT}.lock"
flock -w 120 9 || { echo "ensure-postgres: lock busy" >&2; exit 2; }

say() { echo "ensure-postgres: $*" >&2; }

find_bindir() {
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [[ -n "${dir}" && -x "${dir}/postgres" ]]; then
    echo "${dir}"
  fi
}

as_postgres() {
  if [[ "$(id -u)" == "0" ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

answers() {
  local bindir="$1"
  "${bindir}/pg_isready" -q -h 127.0.0.1 -p "${PORT}" -U postgres -d postgres
}

BINDIR="$(find_bindir)"
if [[ -z "${BINDIR}" ]]; then
  if [[ "$(id -u)" != "0" ]]; then
    say "PostgreSQL is not installed and we are not root; install the 'postgresql' package"
    exit 2
  fi
  say "installing Debian's postgresql package"
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq postgresql >&2
  BINDIR="$(find_bindir)"
  if [[ -z "${BINDIR}" ]]; then
    say "postgresql installed but no server binaries found"
    exit 2
  fi
fi

if ! answers "${BINDIR}"; then
  if [[ ! -s "${DATA}/PG_VERSION" ]]; then
    say "initialising ${DATA}"
    rm -rf "${DATA}"
    mkdir -p "${DATA}"
    if [[ "$(id -u)" == "0" ]]; then chown postgres:postgres "${DATA}"; fi
    chmod 700 "${DATA}"
    as_postgres "${BINDIR}/initdb" -D "${DATA}" -U postgres --auth=trust -E UTF8 \
      --no-instructions >"${DATA}.initdb.log" 2>&1 || {
      cat "${DATA}.initdb.log" >&2
      exit 2
    }
  fi
  say "starting postgres on 127.0.0.1:${PORT}"
  touch "${DATA}.log"
  if [[ "$(id -u)" == "0" ]]; then chown postgres:postgres "${DATA}.log"; fi
  as_postgres "${BINDIR}/pg_ctl" -D "${DATA}" -l "${DATA}.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p ${PORT} -k ${DATA} -c max_connections=300" start >&2 9>&- || {
    tail -n 30 "${DATA}.log" >&2
    exit 2
  }
  for _ in $(seq 1 60); do
    answers "${BINDIR}" && break
    sleep 0.5
  done
fi

if ! answers "${BINDIR}"; then
  say "no server answers on 127.0.0.1:${PORT}"
  exit 2
fi

PSQL=("${BINDIR}/psql" -h 127.0.0.1 -p "${PORT}" -U postgres -d postgres -v ON_ERROR_STOP=1 -qAt)
if [[ "$("${PSQL[@]}" -c "SELECT 1 FROM pg_database WHERE datname = '${DB}'")" != "1" ]]; then
  "${PSQL[@]}" -c "CREATE DATABASE ${DB}" >&2
fi

echo "${DSN}" >"${DSN_FILE}"
echo "${DSN}"
