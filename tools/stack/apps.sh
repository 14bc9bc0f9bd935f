#!/usr/bin/env bash
# Echoloop's own services, run from source on the local stack (tools/stack/stack.sh must be up).
#
# Usage: tools/stack/apps.sh up|down|status [chat-gateway] [reward-labeller] [rl-orchestrator] [eval-runner]
# Env: GATEWAY_PORT=3000 LABELLER_PORT=3001 ORCHESTRATOR_PORT=3002 EVAL_RUNNER_PORT=3003, plus each app's own
# variables (README). The orchestrator's SERVICE_API_KEY, and the gateway's RL_ORCHESTRATOR_API_KEY and
# EVAL_RUNNER_API_KEY, default to the keys the seed minted (.infra/state).
# Logs: .infra/logs/<app>.log (pino JSON); pids: .infra/run/<app>.pid
set -euo pipefail
STACK_COMPONENT=apps
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

: "${GATEWAY_PORT:=3000}"
: "${LABELLER_PORT:=3001}"
: "${ORCHESTRATOR_PORT:=3002}"
: "${EVAL_RUNNER_PORT:=3003}"
START_TIMEOUT=60
STOP_TIMEOUT=15
ALL=(chat-gateway reward-labeller rl-orchestrator eval-runner)
SERVICE_KEY_FILE="$INFRA_DIR/state/orchestrator-service.key"
GATEWAY_RL_KEY_FILE="$INFRA_DIR/state/gateway-rl-orchestrator.key"
GATEWAY_EVAL_KEY_FILE="$INFRA_DIR/state/gateway-eval-runner.key"

port_of() {
  case $1 in
    chat-gateway) echo "$GATEWAY_PORT" ;;
    reward-labeller) echo "$LABELLER_PORT" ;;
    rl-orchestrator) echo "$ORCHESTRATOR_PORT" ;;
    eval-runner) echo "$EVAL_RUNNER_PORT" ;;
  esac
}

# What the orchestrator needs from the others on a local install (unless already set). Exported, not passed as
# arguments: the key must not show in the process list.
export_orchestrator_env() {
  if [[ -z ${SERVICE_API_KEY:-} && -f $SERVICE_KEY_FILE ]]; then SERVICE_API_KEY=$(<"$SERVICE_KEY_FILE"); fi
  : "${GATEWAY_URL:=http://127.0.0.1:$GATEWAY_PORT}" "${EVAL_RUNNER_URL:=http://127.0.0.1:$EVAL_RUNNER_PORT}"
  : "${LABELLER_URL:=http://127.0.0.1:$LABELLER_PORT}" "${RL_PYTHON:=$(bash "$STACK_DIR/../python/venv.sh" train)}"
  export SERVICE_API_KEY GATEWAY_URL EVAL_RUNNER_URL LABELLER_URL RL_PYTHON
}

# Where the gateway forwards the staff pages' RL jobs and evaluations, with its own keys (unless already set).
export_gateway_env() {
  if [[ -z ${RL_ORCHESTRATOR_API_KEY:-} && -f $GATEWAY_RL_KEY_FILE ]]; then
    RL_ORCHESTRATOR_API_KEY=$(<"$GATEWAY_RL_KEY_FILE")
  fi
  if [[ -z ${EVAL_RUNNER_API_KEY:-} && -f $GATEWAY_EVAL_KEY_FILE ]]; then
    EVAL_RUNNER_API_KEY=$(<"$GATEWAY_EVAL_KEY_FILE")
  fi
  : "${RL_ORCHESTRATOR_URL:=http://127.0.0.1:$ORCHESTRATOR_PORT}" "${EVAL_RUNNER_URL:=http://127.0.0.1:$EVAL_RUNNER_PORT}"
  export RL_ORCHESTRATOR_URL EVAL_RUNNER_URL
  [[ -n ${RL_ORCHESTRATOR_API_KEY:-} ]] && export RL_ORCHESTRATOR_API_KEY
  [[ -n ${EVAL_RUNNER_API_KEY:-} ]] && export EVAL_RUNNER_API_KEY
  return 0
}

live() { curl -fs -o /dev/null --max-time 2 "http://127.0.0.1:$(port_of "$1")/health/live"; }

cmd_up() {
  local app
  for app in "${APPS[@]}"; do
    if is_running "$app"; then
      log "$app already running"
      continue
    fi
    port_open 127.0.0.1 "$(port_of "$app")" && die "port $(port_of "$app") is in use (set the app's *_PORT)"
    log "starting $app on 127.0.0.1:$(port_of "$app")"
    (
      if [[ $app == rl-orchestrator ]]; then export_orchestrator_env; fi
      if [[ $app == chat-gateway ]]; then export_gateway_env; fi
      start_detached "$app" env PORT="$(port_of "$app")" SWC_NODE_PROJECT=tsconfig.base.json \
        node -r @swc-node/register "apps/$app/src/main.ts"
    )
  done
  for app in "${APPS[@]}"; do
    local deadline=$((SECONDS + START_TIMEOUT))
    until live "$app"; do
      is_running "$app" || die "$app exited during start-up (see $(log_file "$app"))"
      ((SECONDS < deadline)) || die "$app not live after ${START_TIMEOUT}s (see $(log_file "$app"))"
      sleep 0.3
    done
  done
}

cmd_down() {
  local i
  for ((i = ${#APPS[@]} - 1; i >= 0; i--)); do stop_process "${APPS[$i]}" "$STOP_TIMEOUT"; done
}

cmd_status() {
  local app rc=0 url
  for app in "${APPS[@]}"; do
    url="http://127.0.0.1:$(port_of "$app")"
    if is_running "$app" && live "$app"; then print_status "$app" up "$url"; else
      print_status "$app" down "$url"
      rc=1
    fi
  done
  return "$rc"
}

cmd=${1:-}
[[ $cmd =~ ^(up|down|status)$ ]] || die "usage: $0 up|down|status [${ALL[*]}]"
shift
APPS=("${ALL[@]}")
if (($#)); then APPS=("$@"); fi
for app in "${APPS[@]}"; do
  [[ " ${ALL[*]} " == *" $app "* ]] || die "unknown app '$app' (expected: ${ALL[*]})"
done
"cmd_$cmd"
