#!/usr/bin/env bash
# Make sure the test Postgres (127.0.0.1:5432, user postgres, trust auth, database `test`) is up.
# Idempotent: starts an installed cluster that is down, installs Postgres when it is missing.
set -euo pipefail

url="${TEST_DATABASE_URL:-postgresql+asyncpg://postgres@127.0.0.1:5432/test}"
case "$url" in
  *@127.0.0.1:*|*@localhost:*|*@127.0.0.1/*|*@localhost/*) ;;
  *) echo "ensure-postgres: TEST_DATABASE_URL points elsewhere; leaving it alone"; exit 0 ;;
esac

ready() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
apt_updated=""
apt_install() {
  [ -n "$apt_updated" ] || { apt-get update -qq; apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

if ! ready; then
  if ! command -v pg_ctlcluster >/dev/null 2>&1 || [ -z "$(ls /etc/postgresql 2>/dev/null)" ]; then
    echo "ensure-postgres: installing PostgreSQL"
    apt_install postgresql postgresql-contrib
  fi
  version=$(ls /etc/postgresql | sort -V | tail -n1)
  conf="/etc/postgresql/$version/main"
  # The suite connects as postgres over TCP without a password (trust, loopback only).
  if ! grep -qE '^host\s+all\s+all\s+127\.0\.0\.1/32\s+trust' "$conf/pg_hba.conf"; then
    sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$conf/pg_hba.conf"
  fi
  echo "ensure-postgres: starting cluster $version/main"
  pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  for _ in $(seq 1 30); do ready && break; sleep 1; done
fi
ready || { echo "ensure-postgres: PostgreSQL is not accepting connections on 127.0.0.1:5432" >&2; exit 1; }

if ! psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='test'" | grep -q 1; then
  echo "ensure-postgres: creating database test"
  psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE test"
fi
if ! psql -h 127.0.0.1 -U postgres -d test -tAc "SELECT 1 FROM pg_available_extensions WHERE name='pg_trgm'" | grep -q 1; then
  echo "ensure-postgres: installing postgresql-contrib (pg_trgm)"
  apt_install postgresql-contrib
fi
# Best effort: Debian's docker-compose lets the suite validate docker-compose.yml (no engine runs here).
if ! command -v docker-compose >/dev/null 2>&1; then
  echo "ensure-postgres: installing docker-compose (for compose file validation)"
  apt_install docker-compose || echo "ensure-postgres: docker-compose unavailable; the compose test checks structure only"
fi
echo "ensure-postgres: ready"
