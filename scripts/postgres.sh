#!/usr/bin/env bash
# A real PostgreSQL server for the storage tests: Debian's `postgresql`, installed when missing,
# its cluster started, and a role and database made for the tests. Prints the URL to use
# (BACKALLEY_TEST_POSTGRES) on standard output; on failure prints why on standard error and
# exits 1, so that the caller can skip those tests with the reason.
set -euo pipefail
# Only the URL goes to standard output: whatever the tools print (pg_ctlcluster says "Removed
# stale pid file." there, for one) goes to standard error.
exec 3>&1 1>&2
ROLE=backalley
PASSWORD=backalley
DB=backalley_test
need_root() { [ "$(id -u)" = 0 ] || { echo "needs root to install and start PostgreSQL" >&2; exit 1; }; }
if ! command -v pg_lsclusters >/dev/null 2>&1; then
  need_root
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null) \
    || { echo "apt-get could not install postgresql" >&2; exit 1; }
fi
cluster=$(pg_lsclusters --no-header 2>/dev/null | head -n 1)
if [ -z "$cluster" ]; then
  need_root
  version=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
  pg_createcluster "$version" main >/dev/null
  cluster=$(pg_lsclusters --no-header | head -n 1)
fi
read -r version name port status _ <<<"$cluster"
if [ "$status" != online ]; then
  need_root
  pg_ctlcluster "$version" "$name" start 3>&- || { echo "the PostgreSQL cluster did not start" >&2; exit 1; }
fi
as_postgres() { if [ "$(id -u)" = 0 ]; then su postgres -c "$1"; else sh -c "$1"; fi; }
for _ in $(seq 20); do as_postgres "psql -p $port -qAtc 'select 1'" >/dev/null 2>&1 && break; sleep 0.5; done
as_postgres "psql -p $port -qAtc \"select 1 from pg_roles where rolname='$ROLE'\"" | grep -q 1 \
  || as_postgres "psql -p $port -qc \"create role $ROLE login createdb password '$PASSWORD'\"" >/dev/null
as_postgres "psql -p $port -qAtc \"select 1 from pg_database where datname='$DB'\"" | grep -q 1 \
  || as_postgres "createdb -p $port -O $ROLE $DB" >/dev/null
echo "postgresql://$ROLE:$PASSWORD@localhost:$port/$DB" >&3
