#!/usr/bin/env bash
# Makes sure Debian's PostgreSQL server binaries are installed, for the tests
# of the PostgreSQL store. It starts no cluster: each test binary runs a
# throwaway one of its own (testsupport/pgtest). As root on a Debian machine it
# installs the postgresql package when they are absent; elsewhere it says
# what to install.
set -euo pipefail

if compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "PostgreSQL's server binaries are not in /usr/lib/postgresql/*/bin, and this is not a Debian machine where I run as root." >&2
  echo "Install them (Debian: apt-get install postgresql), or put initdb and postgres on PATH, and run this again." >&2
  exit 1
fi
echo "Installing postgresql from Debian's packages..." >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
# The package starts a system cluster where a service manager runs; the
# tests do not use it.
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || {
  echo "the postgresql package installed no /usr/lib/postgresql/*/bin/initdb" >&2
  exit 1
}
