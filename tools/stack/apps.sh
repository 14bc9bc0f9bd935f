#!/usr/bin/env bash
# Echoloop's own services, run from source on the local stack (tools/stack/stack.sh must be up).
#
# Usage: tools/stack/apps.sh up|down|status [chat-gateway] [reward-labeller] [rl-orchestrator]
# Env: GATEWAY_PORT=3000 LABELLER_PORT=3001 ORCHESTRATOR_PORT=3002, plus each app's own variables (README).
# Logs: .infra/logs/<app>.log (pino JSON); pids: .infra/run/<app>.pid
set -euo pipefail
STACK_COMPONENT=apps
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

: "${GATEWAY_PORT:=3000}"
: "${LABELLER_PORT:=3001}"
: "${ORCHESTRATOR_PORT:=3002}"
START_TIMEOUT=60
STOP_TIMEOUT=15
ALL=(chat-gateway reward-labeller rl-orchestrator)

port_of() {
  case $1 in
    chat-gateway) echo "$GATEWAY_PORT" ;;
    reward-labeller) echo "$LABELLER_PORT" ;;
    rl-orchestrator) echo "$ORCHESTRATOR_PORT" ;;
  esac
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
    start_detached "$app" env PORT="$(port_of "$app")" SWC_NODE_PROJECT=tsconfig.base.json \
      node -r @swc-node/register "apps/$app/src/main.ts"
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
