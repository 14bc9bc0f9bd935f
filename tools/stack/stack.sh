#!/usr/bin/env bash
# Local dev stack: PostgreSQL 15, Kafka 3.9.1 (KRaft), OpenAI-compatible model server.
# No Docker; everything is installed and kept under .infra/ (gitignored).
#
# Usage: tools/stack/stack.sh up|down|status|reset [postgres] [kafka] [model]
#   up      install what is missing, start (postgres and kafka in parallel), print endpoints
#   down    stop, in reverse order
#   status  one line per component; exits 1 if any is down
#   reset   postgres: drop and recreate the databases; kafka: wipe all topics; model: nothing
# Components default to all three. Each also has its own script: postgres.sh, kafka.sh, model.sh.
#
# Env: PG_PORT=55432 KAFKA_PORT=19092 KAFKA_CONTROLLER_PORT=19093 MODEL_PORT=18000
# Endpoints: postgres://echoloop:echoloop@127.0.0.1:55432/echoloop (and /echoloop_test),
#            kafka 127.0.0.1:19092, http://127.0.0.1:18000/v1
# Logs: .infra/logs/<component>.log; pids: .infra/run/<component>.pid
set -euo pipefail
STACK_COMPONENT=stack
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ALL=(postgres kafka model)

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
    [[ $c == model ]] || component "$c" reset
  done
}

cmd=${1:-}
[[ $cmd =~ ^(up|down|status|reset)$ ]] || die "usage: $0 up|down|status|reset [postgres] [kafka] [model]"
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
