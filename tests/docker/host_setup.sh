#!/usr/bin/env bash
# Make this host able to build tfcore's Docker image (tests/docker, .ci/run): install docker.io and
# debootstrap from the system's package repositories if missing (root, Debian/Ubuntu), and start
# dockerd if no daemon answers. The daemon runs without iptables/NAT/bridge (hosts such as CI
# sandboxes lack them), so builds and containers use `--network host`. Idempotent; exits non-zero
# with a message naming what is missing when it cannot.
set -euo pipefail
log_dir="${TFCORE_DOCKER_LOG_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tfcore/docker-base}"
mkdir -p "$log_dir"

need=()
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
command -v docker >/dev/null 2>&1 || need+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
if ((${#need[@]})); then
  if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
    echo "host_setup.sh: missing ${need[*]}; install them (apt-get install docker.io debootstrap) as root" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io debootstrap >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  if [[ $(id -u) != 0 ]]; then
    echo "host_setup.sh: no Docker daemon answers and only root can start one" >&2
    exit 1
  fi
  nohup setsid dockerd --iptables=false --ip-masq=false --bridge=none --storage-driver=overlay2 \
    >"$log_dir/dockerd.log" 2>&1 &
  for _ in $(seq 60); do
    docker info >/dev/null 2>&1 && break
    sleep 1
  done
  docker info >/dev/null 2>&1 || { echo "host_setup.sh: dockerd did not start; see $log_dir/dockerd.log" >&2; exit 1; }
fi
echo "docker: $(docker version --format '{{.Server.Version}}' 2>/dev/null), debootstrap: $(command -v debootstrap)"
