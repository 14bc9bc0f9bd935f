#!/usr/bin/env bash
# Checks the Prometheus rules and Grafana dashboards of deploy/observability; prints one OK/FAIL line per check and
# exits 1 when any check failed.
#
#   tools/ci/validate-observability.sh           every check
#   tools/ci/validate-observability.sh metrics   only print, as JSON, every metric the rules and dashboards read
#                                                (test/apps.int-spec.ts compares them with what the apps export)
#
# Checks:
#   1. `promtool check rules --lint-fatal` on prometheus/alerts.yaml (Prometheus' own rule parser and linter).
#   2. `promtool test rules` on prometheus/alerts.test.yaml: each alert fires on the series it is written for.
#   3. tools/ci/observability-lint dashboards: each dashboard decoded strictly with the Grafana Foundation SDK's types
#      and validated by it, then Grafana's dashboard-linter rules (datasource and job/instance variables, units,
#      PromQL that parses, counters inside rate, $__rate_interval, histogram_quantile by le).
#   4. Self-checks: a rule file with a broken expression, an alert test that cannot pass and a dashboard with an
#      unknown field are refused, so the checks above can fail.
#
# promtool (built from the Go module of Prometheus, pinned) and observability-lint (built from tools/ci, keyed by the
# hash of its sources) are kept in $ECHOLOOP_CACHE_DIR/observability-tools (default .infra/cache).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OBS="$ROOT/deploy/observability"
PROMETHEUS_VERSION=v0.316.0
LINT_SRC="$ROOT/tools/ci/observability-lint"
CACHE="${ECHOLOOP_CACHE_DIR:-$ROOT/.infra/cache}/observability-tools"
export PATH="$PATH:/usr/local/go/bin"
command -v go >/dev/null || { echo "FAIL go is required (to build promtool and observability-lint)"; exit 1; }

lint_hash="$(cat "$LINT_SRC"/go.mod "$LINT_SRC"/go.sum "$LINT_SRC"/*.go | sha256sum | cut -c1-16)"
PROMTOOL="$CACHE/promtool-$PROMETHEUS_VERSION/promtool"
OLINT="$CACHE/observability-lint-$lint_hash/observability-lint"
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9
if [[ ! -x $OLINT ]]; then
  echo "validate-observability: building observability-lint ($lint_hash)" >&2
  (cd "$LINT_SRC" && GOFLAGS=-mod=mod go build -o "$OLINT.partial" .) >&2 && mv "$OLINT.partial" "$OLINT"
fi
if [[ ${1:-} == metrics ]]; then
  exec "$OLINT" metrics --rules "$OBS/prometheus/alerts.yaml" $(printf -- '--dashboards %s ' "$OBS"/grafana/dashboards/*.json)
fi
if [[ ! -x $PROMTOOL ]]; then
  echo "validate-observability: building promtool $PROMETHEUS_VERSION (once per machine, minutes)" >&2
  GOFLAGS=-mod=mod GOBIN="$(dirname "$PROMTOOL").partial" \
    go install "github.com/prometheus/prometheus/cmd/promtool@$PROMETHEUS_VERSION" >&2
  mv "$(dirname "$PROMTOOL").partial" "$(dirname "$PROMTOOL")"
fi
flock -u 9

failures=0
ok() { printf 'OK   %s\n' "$1"; }
fail() { printf 'FAIL %s\n' "$1"; failures=$((failures + 1)); }
check() { # NAME COMMAND...: OK when the command succeeds
  local name=$1 out
  shift
  if out="$("$@" 2>&1)"; then ok "$name"; else fail "$name"; sed 's/^/     /' <<<"$out"; fi
}
refused() { # NAME PATTERN COMMAND...: OK when the command fails saying PATTERN
  local name=$1 pattern=$2 out
  shift 2
  if out="$("$@" 2>&1)"; then fail "$name (accepted)"; elif grep -q -- "$pattern" <<<"$out"; then ok "$name"; else
    fail "$name (refused for another reason)"; sed 's/^/     /' <<<"$out"
  fi
}

check "promtool check rules --lint-fatal prometheus/alerts.yaml" \
  "$PROMTOOL" check rules --lint-fatal "$OBS/prometheus/alerts.yaml"
check "promtool test rules prometheus/alerts.test.yaml" \
  bash -c 'cd "$1" && "$2" test rules alerts.test.yaml' _ "$OBS/prometheus" "$PROMTOOL"
check "observability-lint dashboards ($(ls "$OBS"/grafana/dashboards/*.json | wc -l) dashboards)" \
  "$OLINT" dashboards "$OBS"/grafana/dashboards/*.json

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
sed '0,/expr: /s/expr: /expr: sum by (service (/' "$OBS/prometheus/alerts.yaml" >"$WORK/alerts.yaml"
refused "self-check: promtool refuses a rule that does not parse" "parse error" \
  "$PROMTOOL" check rules --lint-fatal "$WORK/alerts.yaml"
cp "$OBS/prometheus/alerts.yaml" "$WORK/alerts.yaml"
sed 's/severity: critical/severity: info/' "$OBS/prometheus/alerts.test.yaml" >"$WORK/alerts.test.yaml"
refused "self-check: promtool test rules fails an alert that does not fire as written" "FAILED" \
  bash -c 'cd "$1" && "$2" test rules alerts.test.yaml' _ "$WORK" "$PROMTOOL"
python3 - "$OBS/grafana/dashboards/chat.json" "$WORK/chat.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
next(p for p in d["panels"] if p["type"] != "row")["legendz"] = True
json.dump(d, open(sys.argv[2], "w"))
PY
refused "self-check: observability-lint refuses a panel with an unknown field" "unexpected field 'legendz'" \
  "$OLINT" dashboards "$WORK/chat.json"

if ((failures > 0)); then
  echo "validate-observability: $failures check(s) FAILED"
  exit 1
fi
echo "validate-observability: all checks passed"
