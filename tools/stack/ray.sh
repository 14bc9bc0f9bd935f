#!/usr/bin/env bash
# Ray head for the training jobs (Ray 2.60 from the train venv: tools/python/venv.sh train), driven through the
# Jobs REST API on the dashboard: POST $RAY_DASHBOARD_URL/api/jobs/ with an absolute entrypoint.
# Usage: ray.sh install|up|down|status
# Env: RAY_PORT (6380, GCS), RAY_DASHBOARD_PORT (8265), RAY_NUM_CPUS (1).
# Ray daemonizes itself: there is no pid file; the head is up when GET /api/version answers.
set -euo pipefail
STACK_COMPONENT=ray
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

: "${RAY_PORT:=6380}"
: "${RAY_DASHBOARD_PORT:=8265}"
: "${RAY_NUM_CPUS:=1}"
RAY_HOST=127.0.0.1
DASHBOARD_URL="http://$RAY_HOST:$RAY_DASHBOARD_PORT"
START_TIMEOUT=120
STOP_TIMEOUT=30
# The ray executable of the last `up`, so that `down` does not have to build the venv.
RAY_BIN_FILE="$RUN_DIR/ray.bin"

ray_bin() {
  local python
  python=$(bash "$REPO_ROOT/tools/python/venv.sh" train) || die "could not build the train venv"
  printf '%s/ray\n' "$(dirname "$python")"
}

dashboard_ok() { curl -fsS -m 2 -o /dev/null "$DASHBOARD_URL/api/version" 2>/dev/null; }

cmd_install() {
  ray_bin >/dev/null
}

cmd_up() {
  command -v curl >/dev/null || die "curl is required"
  local ray
  ray=$(ray_bin)
  ensure_dirs
  echo "$ray" >"$RAY_BIN_FILE"
  if dashboard_ok; then
    log "already running on $DASHBOARD_URL"
    return 0
  fi
  local port
  for port in "$RAY_PORT" "$RAY_DASHBOARD_PORT"; do
    port_open "$RAY_HOST" "$port" && die "port $port is in use by another process (set RAY_PORT / RAY_DASHBOARD_PORT)"
  done
  log "starting the Ray head ($RAY_NUM_CPUS CPUs, GCS port $RAY_PORT, dashboard $DASHBOARD_URL)"
  # Worker and agent ports are set explicitly: Ray's default range 10002-19999 holds the stack's 18000/19092/19093.
  # setsid: the daemons it leaves behind must not belong to the caller's session or process group.
  RAY_USAGE_STATS_ENABLED=0 setsid --wait "$ray" start --head --disable-usage-stats \
    --num-cpus="$RAY_NUM_CPUS" --port="$RAY_PORT" \
    --include-dashboard=true --dashboard-host="$RAY_HOST" --dashboard-port="$RAY_DASHBOARD_PORT" \
    --min-worker-port=20000 --max-worker-port=20100 --node-manager-port=20200 --object-manager-port=20201 \
    --dashboard-agent-listen-port=20202 --dashboard-agent-grpc-port=20203 --runtime-env-agent-port=20204 \
    </dev/null >>"$(log_file ray)" 2>&1 || die "ray start failed (see $(log_file ray))"
  local deadline=$((SECONDS + START_TIMEOUT))
  until dashboard_ok; do
    ((SECONDS < deadline)) || die "GET $DASHBOARD_URL/api/version not 200 after ${START_TIMEOUT}s (see $(log_file ray))"
    sleep 0.5
  done
}

ray_left() { dashboard_ok || port_open "$RAY_HOST" "$RAY_PORT"; }

cmd_down() {
  local ray
  if [[ -s $RAY_BIN_FILE ]]; then
    ray=$(<"$RAY_BIN_FILE")
  elif ray_left; then
    ray=$(ray_bin)
  else
    return 0
  fi
  [[ -x $ray ]] || { ray_left && die "$ray is gone and a Ray head still answers on $DASHBOARD_URL"; return 0; }
  log "stopping the Ray head"
  "$ray" stop >>"$(log_file ray)" 2>&1 || true
  local deadline=$((SECONDS + STOP_TIMEOUT))
  while ray_left; do
    if ((SECONDS >= deadline)); then
      log "Ray still answers after ${STOP_TIMEOUT}s, forcing"
      "$ray" stop --force >>"$(log_file ray)" 2>&1 || true
      sleep 1
      ray_left && die "could not stop the Ray head (see $(log_file ray))"
      break
    fi
    sleep 0.5
  done
  rm -f "$RAY_BIN_FILE"
}

cmd_status() {
  if dashboard_ok; then
    print_status ray up "$DASHBOARD_URL (Ray Jobs API, GCS $RAY_HOST:$RAY_PORT)"
  else
    print_status ray down "$DASHBOARD_URL"
    return 1
  fi
}

case "${1:-}" in
  install | up | down | status) "cmd_$1" ;;
  *) die "usage: $0 install|up|down|status" ;;
esac
