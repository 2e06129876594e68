#!/usr/bin/env bash
# A throwaway PostgreSQL for the Iceberg JDBC catalog tests (adapters-iceberg).
#
#   eval "$(bash scripts/ensure-postgres.sh start)"   # prints export lines: POSTGRES_JDBC_URL, POSTGRES_USER,
#                                                     # POSTGRES_PASSWORD, POSTGRES_DATA_DIR
#   bash scripts/ensure-postgres.sh stop              # stops the cluster in POSTGRES_DATA_DIR and deletes it
#
# start installs Debian's postgresql package with apt-get when no initdb is found (needs root, as on CI), creates a
# new cluster in a fresh temporary directory (password authentication, a random password, listening on 127.0.0.1
# only, on a free port) and starts it. PostgreSQL refuses to run as root: as root, the cluster belongs to the
# 'postgres' user the Debian package creates, and initdb/pg_ctl run as that user; as any other user they run as that
# user. Only the export lines go to stdout; progress goes to stderr.
set -euo pipefail

action="${1:-start}"

find_bin_dir() {
  local initdb
  # Debian keeps the server binaries out of PATH, one directory per major version: take the newest.
  initdb="$(ls -1d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1 || true)"
  if [[ -z "${initdb}" ]] && initdb="$(command -v initdb 2>/dev/null)"; then
    # A link on PATH (some images link initdb and pg_ctl into /usr/local/bin): the directory it points into has
    # the other programs too.
    initdb="$(readlink -f "${initdb}")"
  fi
  if [[ -n "${initdb}" && -x "$(dirname "${initdb}")/pg_ctl" ]]; then
    dirname "${initdb}"
    return 0
  fi
  return 1
}

as_owner() {
  if [[ "$(id -u)" == "0" ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$(( 20000 + RANDOM % 20000 ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/${port}") 2>/dev/null; then
      echo "${port}"
      return 0
    fi
  done
  echo "ensure-postgres.sh: no free port found" >&2
  return 1
}

start() {
  local bin_dir
  if ! bin_dir="$(find_bin_dir)"; then
    if [[ "$(id -u)" != "0" ]]; then
      echo "ensure-postgres.sh: PostgreSQL is missing; install it as root: apt-get install -y postgresql" >&2
      exit 1
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
      echo "ensure-postgres.sh: no apt-get here; install PostgreSQL (initdb, pg_ctl) or set POSTGRES_JDBC_URL," \
           "POSTGRES_USER and POSTGRES_PASSWORD to a server of your own" >&2
      exit 1
    fi
    echo "ensure-postgres.sh: installing postgresql with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends postgresql >&2
    bin_dir="$(find_bin_dir)" || { echo "ensure-postgres.sh: initdb still missing after apt-get install" >&2; exit 1; }
  fi
  if [[ "$(id -u)" == "0" ]] && ! id postgres >/dev/null 2>&1; then
    echo "ensure-postgres.sh: running as root, but there is no 'postgres' user to own the cluster" >&2
    exit 1
  fi

  local dir port password user=iggysink
  dir="$(mktemp -d "${TMPDIR:-/tmp}/iggysink-postgres.XXXXXX")"
  port="$(free_port)"
  password="pw-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
  printf '%s\n' "${password}" > "${dir}/pwfile"
  if [[ "$(id -u)" == "0" ]]; then
    chown -R postgres: "${dir}"
  fi
  as_owner "${bin_dir}/initdb" -D "${dir}/data" -U "${user}" --pwfile="${dir}/pwfile" --auth=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 >&2
  rm -f "${dir}/pwfile"
  # 127.0.0.1 only; the socket in the cluster's own directory (the default one belongs to the system's cluster).
  as_owner "${bin_dir}/pg_ctl" -D "${dir}/data" -l "${dir}/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p ${port} -c unix_socket_directories=${dir} -c fsync=off" start >&2
  # A database of its own when createdb is there; otherwise the 'postgres' database every cluster has.
  local database=postgres
  if [[ -x "${bin_dir}/createdb" ]]; then
    as_owner env PGPASSWORD="${password}" "${bin_dir}/createdb" -h 127.0.0.1 -p "${port}" -U "${user}" iceberg >&2
    database=iceberg
  fi
  echo "ensure-postgres.sh: PostgreSQL from ${bin_dir} on 127.0.0.1:${port}, database ${database}, data in ${dir}" >&2

  echo "export POSTGRES_JDBC_URL=jdbc:postgresql://127.0.0.1:${port}/${database}"
  echo "export POSTGRES_USER=${user}"
  echo "export POSTGRES_PASSWORD=${password}"
  echo "export POSTGRES_DATA_DIR=${dir}"
}

stop() {
  local dir="${POSTGRES_DATA_DIR:-}"
  if [[ -z "${dir}" || ! -d "${dir}/data" ]]; then
    echo "ensure-postgres.sh: POSTGRES_DATA_DIR names no cluster started by this script" >&2
    exit 1
  fi
  local bin_dir
  bin_dir="$(find_bin_dir)"
  as_owner "${bin_dir}/pg_ctl" -D "${dir}/data" -m fast -w stop >&2 || true
  rm -rf "${dir}"
}

case "${action}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: ensure-postgres.sh start|stop" >&2; exit 2 ;;
esac
