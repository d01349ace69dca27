#!/usr/bin/env bash
# Makes sure a Docker engine answers and debootstrap is there. On a Debian
# machine, as root, it installs what is missing of Debian's docker.io and
# debootstrap, and starts dockerd in the background when no engine answers;
# elsewhere it says what to install.
set -euo pipefail

log=${CAPSULE_DOCKERD_LOG:-/tmp/capsule-dockerd.log}

engine_answers() { docker info >/dev/null 2>&1; }

# debootstrap builds the sandbox image offline (where no registry
# answers): it is wanted whether or not an engine answers already.
need_install=()
command -v debootstrap >/dev/null 2>&1 || need_install+=(debootstrap)
running=false
if command -v docker >/dev/null 2>&1 && engine_answers; then
  running=true
else
  command -v dockerd >/dev/null 2>&1 || need_install+=(docker.io)
fi

debian_root=false
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  debian_root=true
fi
if ! $running && ! $debian_root; then
  echo "No Docker engine answers, and this is not a Debian machine where I run as root." >&2
  echo "Install Docker (Debian: apt-get install docker.io debootstrap), start dockerd, and run this again." >&2
  exit 1
fi
if [ ${#need_install[@]} -gt 0 ]; then
  if $debian_root; then
    echo "Installing ${need_install[*]} from Debian's packages..." >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_install[@]}" >/dev/null
  else
    echo "debootstrap is missing: the sandbox image can be built only where a registry answers (Debian: apt-get install debootstrap)." >&2
  fi
fi
if $running; then
  exit 0
fi

if ! pgrep -x dockerd >/dev/null 2>&1; then
  echo "Starting dockerd (log: $log)..." >&2
  nohup dockerd >"$log" 2>&1 &
fi
for _ in $(seq 1 60); do
  if engine_answers; then
    exit 0
  fi
  sleep 1
done
echo "dockerd did not answer within 60 s; see $log" >&2
tail -n 20 "$log" >&2 || true
exit 1
