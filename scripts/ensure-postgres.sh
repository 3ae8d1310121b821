#!/usr/bin/env bash
# Make sure the test Postgres (127.0.0.1:5432, user postgres, trust auth, database `test`) is up.
# Idempotent and quick when it already is: starts an installed cluster that is down, installs
# PostgreSQL (+ contrib, for pg_trgm/btree_gin) with apt when it is missing, lets the loopback
# connect as postgres without a password, creates the database, and installs PgBouncer and HAProxy
# (the suite starts its own). When TEST_DATABASE_URL names a host other than this machine, it does
# nothing: that server is someone else's to run (the PgBouncer and HAProxy tests then need both
# packages installed by hand).
# Best effort, never failing: Debian's docker-compose, so the suite can validate docker-compose.yml.
set -euo pipefail

say() { echo "ensure-postgres: $*"; }
die() { echo "ensure-postgres: $*" >&2; exit 1; }

url="${TEST_DATABASE_URL:-postgresql+asyncpg://postgres@127.0.0.1:5432/test}"
# scheme://[user[:pass]@]host[:port][/db][?query]
rest="${url#*://}"
authority="${rest%%/*}"
hostport="${authority##*@}"
if [[ "$hostport" == \[* ]]; then host="${hostport%%]*}"; host="${host#[}"; else host="${hostport%%:*}"; fi
port=5432
[[ "$hostport" =~ :([0-9]+)$ ]] && port="${BASH_REMATCH[1]}"
dbname="test"
if [[ "$rest" == */* ]]; then dbname="${rest#*/}"; dbname="${dbname%%\?*}"; dbname="${dbname:-test}"; fi
case "$host" in
  127.0.0.1 | localhost | ::1 | "") ;;
  *) say "TEST_DATABASE_URL points at $host; leaving it alone"; exit 0 ;;
esac

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO=sudo; fi
apt_updated=""
apt_install() {
  command -v apt-get >/dev/null 2>&1 || { echo "ensure-postgres: apt-get unavailable; cannot install $*" >&2; return 1; }
  if [ -z "$apt_updated" ]; then
    say "apt-get update"
    $SUDO apt-get update -qq
    apt_updated=1
  fi
  say "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

ready() { command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h 127.0.0.1 -p "$port" 2>/dev/null; }
psql_admin() { psql -X -w -h 127.0.0.1 -p "$port" -U postgres -v ON_ERROR_STOP=1 "$@"; }
# "VERSION NAME" of the cluster that listens on $port (the newest `main` when none is configured for it).
cluster() {
  command -v pg_lsclusters >/dev/null 2>&1 || return 0
  local found
  found="$(pg_lsclusters -h 2>/dev/null | awk -v p="$port" '$3 == p {print $1, $2}' | sort -V | tail -n1)"
  [ -n "$found" ] || found="$(pg_lsclusters -h 2>/dev/null | awk '$2 == "main" {print $1, $2}' | sort -V | tail -n1)"
  echo "$found"
}

# The suite connects as postgres over TCP without a password: trust, loopback only.
trust_loopback() {
  local hba
  hba="/etc/postgresql/$(cluster | tr ' ' /)/pg_hba.conf"
  [ -f "$hba" ] || return 1
  if ! $SUDO grep -qE '^host\s+all\s+all\s+127\.0\.0\.1/32\s+trust' "$hba"; then
    say "trusting loopback connections in $hba"
    $SUDO sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
    return 0
  fi
  return 1
}

if ready; then
  say "PostgreSQL is accepting connections on 127.0.0.1:$port"
else
  if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ -z "$(cluster)" ]; then
    say "PostgreSQL is not installed; installing it"
    apt_install postgresql postgresql-contrib || die "could not install PostgreSQL"
  fi
  read -r version name <<<"$(cluster)" || true
  [ -n "${version:-}" ] || die "no PostgreSQL cluster found (pg_lsclusters) after installing PostgreSQL"
  trust_loopback || true
  say "starting cluster $version/$name"
  $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" "$name" start 2>&1 || true
  for _ in $(seq 1 30); do ready && break; sleep 1; done
  ready || die "PostgreSQL is not accepting connections on 127.0.0.1:$port after 30 s"
  say "PostgreSQL is up"
fi

if ! psql_admin -d postgres -tAc 'SELECT 1' >/dev/null 2>&1; then
  # Running, but asking for a password (a freshly installed Debian cluster): trust the loopback.
  if trust_loopback; then
    read -r version name <<<"$(cluster)" || true
    $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" "$name" reload
    sleep 1
  fi
  psql_admin -d postgres -tAc 'SELECT 1' >/dev/null || die "cannot connect as postgres to 127.0.0.1:$port"
fi

if [ "$(psql_admin -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$dbname'")" != 1 ]; then
  say "creating database $dbname"
  psql_admin -d postgres -qc "CREATE DATABASE \"$dbname\""
fi

extensions() { psql_admin -d "$dbname" -tAc "SELECT count(*) FROM pg_available_extensions WHERE name IN ('pg_trgm', 'btree_gin')"; }
if [ "$(extensions)" != 2 ]; then
  say "pg_trgm/btree_gin missing; installing postgresql-contrib"
  apt_install postgresql-contrib || die "could not install postgresql-contrib"
  [ "$(extensions)" = 2 ] || die "pg_trgm and btree_gin are still unavailable"
fi

# The suite runs its main flows again through a real PgBouncer (transaction pooling), which it starts
# itself on a free port (tests/support/pgbouncer.py): only the package is needed, not its service.
# Likewise HAProxy, to run the scale profile's proxy configuration (tests/reliability/test_proxy.py).
if ! command -v pgbouncer >/dev/null 2>&1 && [ ! -x /usr/sbin/pgbouncer ]; then
  say "pgbouncer missing; installing Debian's pgbouncer"
  apt_install pgbouncer || die "could not install pgbouncer"
fi
if ! command -v haproxy >/dev/null 2>&1 && [ ! -x /usr/sbin/haproxy ]; then
  say "haproxy missing; installing Debian's haproxy"
  apt_install haproxy || die "could not install haproxy"
fi

# Best effort: lets tests/test_packaging.py run `docker-compose config` (no Docker engine runs here).
if ! command -v docker-compose >/dev/null 2>&1 && ! docker compose version >/dev/null 2>&1; then
  say "docker-compose missing; installing Debian's docker-compose (best effort, to validate docker-compose.yml)"
  apt_install docker-compose || say "docker-compose unavailable; the compose test checks the file's structure only"
fi

say "ready: postgresql://postgres@127.0.0.1:$port/$dbname (pg_trgm available)"
