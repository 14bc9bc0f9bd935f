# shellcheck shell=bash
# Shared helpers for tools/stack/*.sh. Source it; do not execute it.

STACK_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$STACK_DIR/../.." && pwd)"
INFRA_DIR="$REPO_ROOT/.infra"
RUN_DIR="$INFRA_DIR/run"
LOG_DIR="$INFRA_DIR/logs"
DL_DIR="$INFRA_DIR/downloads"

: "${PG_PORT:=55432}"
: "${KAFKA_PORT:=19092}"
: "${KAFKA_CONTROLLER_PORT:=19093}"
: "${MODEL_PORT:=18000}"
export PG_PORT KAFKA_PORT KAFKA_CONTROLLER_PORT MODEL_PORT

# Prefix for log lines; each component script sets its own name.
: "${STACK_COMPONENT:=stack}"

log() { printf '[%s %s] %s\n' "$(date +%H:%M:%S)" "$STACK_COMPONENT" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

ensure_dirs() { mkdir -p "$RUN_DIR" "$LOG_DIR" "$DL_DIR"; }
log_file() { printf '%s/%s.log' "$LOG_DIR" "$1"; }
is_root() { [[ $(id -u) -eq 0 ]]; }

# sha256_ok file expected_hex
sha256_ok() {
  [[ -f $1 ]] && [[ $(sha256sum "$1" | cut -d' ' -f1) == "$2" ]]
}

# port_open host port: true if something accepts TCP connections there.
port_open() {
  # shellcheck disable=SC2016 # expanded by the inner bash
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$1" "$2" 2>/dev/null
}

# wait_for_port host port timeout_s name [pid_name]
# With pid_name, fail early when that detached process has exited.
wait_for_port() {
  local host=$1 port=$2 timeout_s=$3 name=$4 pid_name=${5:-}
  local deadline=$((SECONDS + timeout_s))
  until port_open "$host" "$port"; do
    if [[ -n $pid_name ]] && ! is_running "$pid_name"; then
      die "$name exited before opening $host:$port (see $(log_file "$pid_name"))"
    fi
    ((SECONDS < deadline)) || die "$name did not open $host:$port within ${timeout_s}s"
    sleep 0.2
  done
}

# wait_for_url url timeout_s pid_name: until GET url answers 2xx; fail early when the detached process has exited.
wait_for_url() {
  local url=$1 timeout_s=$2 pid_name=$3
  local deadline=$((SECONDS + timeout_s))
  until curl -fsS -m 2 -o /dev/null "$url" 2>/dev/null; do
    is_running "$pid_name" || die "$pid_name exited during startup (see $(log_file "$pid_name"))"
    ((SECONDS < deadline)) || die "GET $url not 200 after ${timeout_s}s (see $(log_file "$pid_name"))"
    sleep 0.5
  done
}

pid_file() { printf '%s/%s.pid' "$RUN_DIR" "$1"; }

# proc_start pid: start time (clock ticks since boot) of a live pid, to detect pid reuse.
proc_start() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) } # drop "pid (comm) ", comm may contain spaces
  [[ $stat != Z* ]] || return 1 # a zombie has exited
  cut -d' ' -f20 <<<"$stat"
}

read_pid() {
  local f
  f=$(pid_file "$1")
  [[ -s $f ]] || return 1
  cut -d' ' -f1 "$f"
}

# is_running name: the process recorded in the pid file is alive (and is not a reused pid).
is_running() {
  local f pid start
  f=$(pid_file "$1")
  [[ -s $f ]] || return 1
  read -r pid start <"$f"
  [[ $(proc_start "$pid") == "$start" ]]
}

# start_detached name cmd...: run cmd from the repo root in its own session,
# output appended to .infra/logs/<name>.log, pid in .infra/run/<name>.pid.
start_detached() {
  local name=$1 pf
  shift
  ensure_dirs
  pf=$(pid_file "$name")
  rm -f "$pf"
  # The child records its own pid: setsid may fork, so $! is not reliable.
  # shellcheck disable=SC2016 # expanded by the inner bash
  nohup setsid bash -c 'echo $$ >"$1"; cd "$2" && shift 2 && exec "$@"' \
    _ "$pf" "$REPO_ROOT" "$@" >>"$(log_file "$name")" 2>&1 </dev/null &
  local i pid
  for ((i = 0; i < 50; i++)); do
    if [[ -s $pf ]]; then
      pid=$(<"$pf")
      echo "$pid $(proc_start "$pid" || echo exited)" >"$pf"
      return 0
    fi
    sleep 0.1
  done
  die "could not start $name (no pid file)"
}

# stop_process name timeout_s: SIGTERM the process group, SIGKILL after timeout_s.
stop_process() {
  local name=$1 timeout_s=$2 pid deadline
  if ! is_running "$name"; then
    rm -f "$(pid_file "$name")"
    return 0
  fi
  pid=$(read_pid "$name")
  log "stopping $name (pid $pid)"
  # start_detached makes pid a session (and group) leader, so -pid reaches its children too.
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + timeout_s))
  while is_running "$name"; do
    if ((SECONDS >= deadline)); then
      log "$name still alive after ${timeout_s}s, sending SIGKILL"
      kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.2
  done
  rm -f "$(pid_file "$name")"
}

# print_status name state endpoint: one aligned line for status tables.
print_status() {
  printf '%-9s %-8s %s\n' "$1" "$2" "$3"
}
