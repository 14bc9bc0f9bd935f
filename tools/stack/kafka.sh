#!/usr/bin/env bash
# Single-node Apache Kafka 3.9.1 (KRaft) on 127.0.0.1:$KAFKA_PORT, jars from Maven Central.
# Usage: kafka.sh install|up|down|status|reset
set -euo pipefail
STACK_COMPONENT=kafka
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CONF_DIR="$STACK_DIR/kafka"
POM="$CONF_DIR/pom.xml"
KAFKA_DIR="$INFRA_DIR/kafka"
LIBS="$KAFKA_DIR/libs"
DATA="$KAFKA_DIR/data"
PROPS="$KAFKA_DIR/server.properties"
CID_FILE="$KAFKA_DIR/cluster-id"
START_TIMEOUT=90
STOP_TIMEOUT=30

java_cp() {
  java -Djava.awt.headless=true -Dlog4j.configuration="file:$CONF_DIR/log4j.properties" \
    -cp "$LIBS/*" "$@"
}

cmd_install() {
  local stamp="$KAFKA_DIR/libs.sha256" want cached
  want=$(sha256sum "$POM" | cut -d' ' -f1)
  [[ -f $stamp && $(<"$stamp") == "$want" ]] && return 0
  ensure_dirs
  # With a cache folder (CI sets ECHOLOOP_CACHE_DIR), the jars are resolved once per machine and pom, like the
  # Python environments; a fresh clone links them instead of asking Maven Central again.
  cached="${ECHOLOOP_CACHE_DIR:+$ECHOLOOP_CACHE_DIR/kafka-libs/$want}"
  if [[ -n $cached && -d $cached ]]; then
    rm -rf "$LIBS"
    mkdir -p "$KAFKA_DIR"
    cp -al "$cached" "$LIBS" 2>/dev/null || cp -a "$cached" "$LIBS"
    echo "$want" >"$stamp"
    return 0
  fi
  command -v java >/dev/null || die "java 17+ is required (apt-get install -y openjdk-17-jre-headless)"
  command -v mvn >/dev/null || die "maven is required (apt-get install -y maven)"
  log "resolving Kafka jars from Maven Central into $LIBS"
  rm -rf "$LIBS"
  mkdir -p "$LIBS"
  # --strict-checksums: refuse any artifact whose checksum does not match Central's.
  mvn -B -q --strict-checksums -f "$POM" -Dmaven.repo.local="$INFRA_DIR/m2" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$LIBS" \
    >"$(log_file kafka-install)" 2>&1 || die "maven failed (see $(log_file kafka-install))"
  if [[ -n $cached ]]; then
    mkdir -p "$(dirname "$cached")"
    rm -rf "$cached.partial"
    cp -a "$LIBS" "$cached.partial" && mv -T "$cached.partial" "$cached"
  fi
  echo "$want" >"$stamp"
}

render_config() {
  local t
  t=$(<"$CONF_DIR/server.properties.template")
  t=${t//@KAFKA_PORT@/$KAFKA_PORT}
  t=${t//@KAFKA_CONTROLLER_PORT@/$KAFKA_CONTROLLER_PORT}
  t=${t//@KAFKA_DATA_DIR@/$DATA}
  printf '%s\n' "$t" >"$PROPS"
}

# Formats the log dir once; the cluster id survives `reset` so clients see the same cluster.
format_storage() {
  [[ -f $DATA/meta.properties ]] && return 0
  local cid
  if [[ ! -s $CID_FILE ]]; then
    cid=$(java_cp kafka.tools.StorageTool random-uuid | tail -n1)
    [[ $cid =~ ^[A-Za-z0-9_-]{22}$ ]] || die "unexpected cluster id '$cid'"
    echo "$cid" >"$CID_FILE"
  fi
  log "formatting $DATA (cluster $(<"$CID_FILE"))"
  java_cp kafka.tools.StorageTool format -t "$(<"$CID_FILE")" -c "$PROPS" --ignore-formatted \
    >>"$(log_file kafka)" 2>&1 || die "storage format failed (see $(log_file kafka))"
}

# wait_for_log offset pattern: pattern appears in the kafka log after byte offset.
wait_for_log() {
  local logf deadline=$((SECONDS + START_TIMEOUT))
  logf=$(log_file kafka)
  # No grep -q: it would SIGPIPE tail and fail the pipeline under pipefail.
  until tail -c "+$(($1 + 1))" "$logf" | grep -F "$2" >/dev/null; do
    is_running kafka || die "broker exited during startup (see $logf)"
    ((SECONDS < deadline)) || die "broker not ready after ${START_TIMEOUT}s (see $logf)"
    sleep 0.2
  done
}

cmd_up() {
  cmd_install
  ensure_dirs
  mkdir -p "$DATA"
  render_config
  if is_running kafka; then
    log "already running on 127.0.0.1:$KAFKA_PORT"
    wait_for_port 127.0.0.1 "$KAFKA_PORT" "$START_TIMEOUT" kafka kafka
    return 0
  fi
  local port offset
  for port in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"; do
    port_open 127.0.0.1 "$port" && die "port $port is in use by another process (set KAFKA_PORT/KAFKA_CONTROLLER_PORT)"
  done
  format_storage
  touch "$(log_file kafka)"
  offset=$(stat -c %s "$(log_file kafka)")
  log "starting on 127.0.0.1:$KAFKA_PORT (controller $KAFKA_CONTROLLER_PORT)"
  start_detached kafka java -Xms256m -Xmx512m -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError \
    -Djava.awt.headless=true -Dlog4j.configuration="file:$CONF_DIR/log4j.properties" \
    -cp "$LIBS/*" kafka.Kafka "$PROPS"
  wait_for_port 127.0.0.1 "$KAFKA_PORT" "$START_TIMEOUT" kafka kafka
  # The port opens before the broker is unfenced; this line comes after.
  wait_for_log "$offset" 'Kafka Server started'
}

cmd_down() {
  stop_process kafka "$STOP_TIMEOUT"
}

cmd_status() {
  if is_running kafka && port_open 127.0.0.1 "$KAFKA_PORT"; then
    print_status kafka up "127.0.0.1:$KAFKA_PORT (KRaft, data $DATA)"
  else
    print_status kafka down "127.0.0.1:$KAFKA_PORT"
    return 1
  fi
}

# Wipes all topics and offsets; restarts the broker if it was running.
cmd_reset() {
  local was_running=false
  if is_running kafka; then was_running=true; fi
  cmd_down
  log "wiping $DATA"
  rm -rf "$DATA"
  if $was_running; then cmd_up; fi
}

case "${1:-}" in
  install | up | down | status | reset) "cmd_$1" ;;
  *) die "usage: $0 install|up|down|status|reset" ;;
esac
