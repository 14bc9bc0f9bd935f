#!/usr/bin/env bash
# Local dev stack: PostgreSQL 15, Kafka 3.9.1 (KRaft), OpenAI-compatible model server, Ray head (training jobs).
# No Docker; everything is installed and kept under .infra/ (gitignored).
#
# Usage: tools/stack/stack.sh up|down|status|reset [postgres] [kafka] [model] [ray]
#   up      install what is missing, start (postgres, kafka and ray in parallel, then model), print endpoints
#   down    stop, in reverse order
#   status  one line per component; exits 1 if any is down
#   reset   postgres: drop and recreate the databases; kafka: wipe all topics; model, ray: nothing
# Components default to all four. Each also has its own script: postgres.sh, kafka.sh, model.sh, ray.sh.
#
# Env: PG_PORT=55432 KAFKA_PORT=19092 KAFKA_CONTROLLER_PORT=19093 MODEL_PORT=18000
#      RAY_PORT=6380 RAY_DASHBOARD_PORT=8265 RAY_NUM_CPUS=1
# Endpoints: postgres://echoloop:echoloop@127.0.0.1:55432/echoloop (and /echoloop_test),
#            kafka 127.0.0.1:19092, http://127.0.0.1:18000/v1,
#            RAY_DASHBOARD_URL=http://127.0.0.1:8265 (Ray Jobs REST API: POST /api/jobs/)
# Logs: .infra/logs/<component>.log; pids: .infra/run/<component>.pid (Ray daemonizes itself: none)
set -euo pipefail
STACK_COMPONENT=stack
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ALL=(postgres kafka model ray)

component() { bash "$STACK_DIR/$1.sh" "$2"; }

cmd_up() {
  local c rc=0 pids=() names=() i
  for c in "${COMPONENTS[@]}"; do
    [[ $c == model ]] && continue
    component "$c" up &
    pids+=($!)
    names+=("$c")
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { log "${names[$i]} failed to start"; rc=1; }
  done
  if [[ " ${COMPONENTS[*]} " == *" model "* ]]; then
    component model up || { log "model failed to start"; rc=1; }
  fi
  echo
  cmd_status || true
  return "$rc"
}

cmd_down() {
  local i rc=0
  for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do
    component "${COMPONENTS[$i]}" down || rc=1
  done
  return "$rc"
}

cmd_status() {
  local c rc=0
  for c in "${COMPONENTS[@]}"; do
    component "$c" status || rc=1
  done
  return "$rc"
}

cmd_reset() {
  local c
  for c in "${COMPONENTS[@]}"; do
    [[ $c == model || $c == ray ]] || component "$c" reset
  done
}

cmd=${1:-}
[[ $cmd =~ ^(up|down|status|reset)$ ]] || die "usage: $0 up|down|status|reset [postgres] [kafka] [model] [ray]"
shift
requested=("${ALL[@]}")
if (($#)); then requested=("$@"); fi
for c in "${requested[@]}"; do
  [[ " ${ALL[*]} " == *" $c "* ]] || die "unknown component '$c' (expected: ${ALL[*]})"
done
# Keep the canonical order whatever order the arguments came in.
COMPONENTS=()
for c in "${ALL[@]}"; do
  if [[ " ${requested[*]} " == *" $c "* ]]; then COMPONENTS+=("$c"); fi
done
"cmd_$cmd"
