#!/usr/bin/env bash
# A small local Redis Cluster for the Redis tests: 3 masters and 3 replicas on free loopback ports, no
# persistence, every file in one state directory.
#
#   scripts/ci/redis-cluster.sh start   # prints the seed URLs (comma-separated) on stdout; idempotent
#   scripts/ci/redis-cluster.sh urls    # prints them again (fails when the cluster is not up)
#   scripts/ci/redis-cluster.sh stop    # stops the servers this script started (by PID) and removes the directory
#
# In CI:  REDIS_CLUSTER_URLS="$(scripts/ci/redis-cluster.sh start)"; export REDIS_CLUSTER_URLS
#
# Environment: VERIKIT_CLUSTER_DIR (state directory; default $TMPDIR/verikit-redis-cluster),
# VERIKIT_CLUSTER_NODE_TIMEOUT (cluster-node-timeout in ms; default 2000). Only servers whose PID files are
# in the state directory are ever stopped; the Redis on 6379 is never touched. Logs go to stderr.
set -euo pipefail

dir="${VERIKIT_CLUSTER_DIR:-${TMPDIR:-/tmp}/verikit-redis-cluster}"
node_timeout="${VERIKIT_CLUSTER_NODE_TIMEOUT:-2000}"
nodes=6

log() { echo "redis-cluster: $*" >&2; }

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

ports() { [ -f "$dir/ports" ] && cat "$dir/ports"; }

urls() {
  local list=() port
  for port in $(ports); do list+=("redis://127.0.0.1:$port"); done
  (IFS=,; echo "${list[*]}")
}

cluster_ok() {
  local port count=0 info
  for port in $(ports); do
    redis-cli -h 127.0.0.1 -p "$port" cluster info 2>/dev/null | grep -q '^cluster_state:ok' || return 1
    # A replica counts once it is in sync with its master (it can then be promoted).
    info="$(redis-cli -h 127.0.0.1 -p "$port" info replication 2>/dev/null)" || return 1
    if grep -q '^role:slave' <<<"$info"; then grep -q '^master_link_status:up' <<<"$info" || return 1; fi
    count=$((count + 1))
  done
  [ "$count" -eq "$nodes" ] || return 1
  # Every node is known to the first one, none failing, and 3 masters serve slots.
  local view
  view="$(redis-cli -h 127.0.0.1 -p "$(ports | awk '{print $1}')" cluster nodes 2>/dev/null)" || return 1
  [ "$(grep -cv fail <<<"$view")" -eq "$nodes" ] && [ "$(awk '$3 ~ /master/ && NF >= 9' <<<"$view" | wc -l)" -eq 3 ]
}

stop() {
  local pidfile pid
  for pidfile in "$dir"/*/redis.pid; do
    [ -f "$pidfile" ] || continue
    pid="$(cat "$pidfile")"
    # Only a redis-server started from this directory: the PID file is ours, and the process is a redis-server.
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && grep -q redis-server "/proc/$pid/cmdline" 2>/dev/null; then
      kill -9 "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$dir"
}

pick_ports() {
  local attempt base port ok
  for attempt in $(seq 1 50); do
    # Below Linux's ephemeral range (32768 and up), bus ports (+10000) included: no outgoing connection of a
    # busy test run can hold one of these ports when a node binds it.
    base=$((20000 + RANDOM % 2700))
    ok=1
    for port in $(seq "$base" $((base + nodes - 1))); do
      port_free "$port" && port_free $((port + 10000)) || { ok=0; break; }
    done
    if [ "$ok" = 1 ]; then
      seq "$base" $((base + nodes - 1)) | tr '\n' ' '
      return 0
    fi
  done
  log "no $nodes free consecutive ports (and their bus ports) found"
  return 1
}

start() {
  if [ -f "$dir/ports" ] && cluster_ok; then
    log "already running: $(urls)"
    urls
    return 0
  fi
  [ -d "$dir" ] && stop
  if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
    log "installing redis-server"
    (apt-get update -qq && apt-get install -y -qq redis-server) >/dev/null
  fi
  mkdir -p "$dir"
  local port
  pick_ports >"$dir/ports"
  for port in $(ports); do
    mkdir -p "$dir/$port"
    redis-server --port "$port" --bind 127.0.0.1 --daemonize yes \
      --cluster-enabled yes --cluster-config-file "$dir/$port/nodes.conf" --cluster-node-timeout "$node_timeout" \
      --save "" --appendonly no --dir "$dir/$port" --pidfile "$dir/$port/redis.pid" --logfile "$dir/$port/redis.log"
  done
  for port in $(ports); do
    for _ in $(seq 1 100); do
      [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = PONG ] && break
      sleep 0.05
    done
  done
  local seeds=()
  for port in $(ports); do seeds+=("127.0.0.1:$port"); done
  redis-cli --cluster create "${seeds[@]}" --cluster-replicas 1 --cluster-yes >"$dir/create.log" 2>&1 || {
    log "cluster create failed:"; cat "$dir/create.log" >&2; stop; return 1
  }
  for _ in $(seq 1 200); do
    cluster_ok && break
    sleep 0.05
  done
  cluster_ok || { log "the cluster did not become ready"; stop; return 1; }
  log "started: $(urls) (state in $dir)"
  urls
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  urls) cluster_ok && urls ;;
  *) echo "usage: $0 start|stop|urls" >&2; exit 2 ;;
esac
