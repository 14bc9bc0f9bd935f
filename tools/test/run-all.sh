#!/usr/bin/env bash
# The whole test run: starts the local stack it needs, runs every gate (format, lint, typecheck, compose) and
# every test suite (Jest's unit and integration, pytest), stops what it started, and ends with
# `tests: N passed, N failed`.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
export NX_DAEMON=false NX_NO_CLOUD=true
RESULTS=.infra/test-results
rm -rf "$RESULTS" && mkdir -p "$RESULTS"

log() { printf '[%s test] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# Stop at the end only what this run started, so a developer's running stack survives `./echoloop test`.
started=()
for component in postgres kafka model ray; do
  bash tools/stack/"$component".sh status >/dev/null 2>&1 || started+=("$component")
done
cleanup() { ((${#started[@]})) && bash tools/stack/stack.sh down "${started[@]}" >/dev/null 2>&1; }
trap cleanup EXIT

gate() {
  local name=$1
  shift
  log "gate: $name"
  if "$@" >"$RESULTS/$name.log" 2>&1; then echo "pass" >"$RESULTS/$name.gate"; else
    echo "fail" >"$RESULTS/$name.gate"
    tail -40 "$RESULTS/$name.log" >&2
  fi
}

# The integration suites start the apps from this build (swc with the repo's .swcrc, as the Docker image builds
# them) instead of compiling them from source in every process they start; the compose checks load the apps'
# environment schemas from it too.
export APPS_BUILD_DIR=.infra/apps-build
rm -rf "$APPS_BUILD_DIR"
# Format and typecheck keep what they learnt about unchanged files (by content) from one run to the next.
CHECK_CACHE="${ECHOLOOP_CACHE_DIR:-$ROOT/.infra/cache}/static-checks"
mkdir -p "$CHECK_CACHE"

# The stack starts (mostly waiting on Kafka, the model and Ray) while the gates that need none of it run.
gate stack bash tools/stack/stack.sh up &
stack=$!
gate browser bash tools/web/chromium.sh
gate build npx swc apps libs migrations -d "$APPS_BUILD_DIR" --copy-files --quiet \
  --ignore '**/*.spec.ts,**/*.int-spec.ts,**/*.outage-spec.ts,apps/web/**'
gate format npx prettier --check . --cache --cache-strategy content --cache-location "$CHECK_CACHE/prettier"
gate python-lint bash tools/python/check.sh lint
gate imports npm run --silent check:imports
# One ESLint process over the repo builds each type-checked program once (24 s here; per project, `nx run-many -t
# lint` took 3 min): same config, same module-boundary rules.
# @nx/enforce-module-boundaries reads Nx's cached project graph and skips itself (a warning, not a failure) when there
# is none, as on a fresh clone: the graph is computed first, and a skipped rule fails the gate.
gate lint bash -c 'npx nx show projects >/dev/null && npx eslint --max-warnings 0 . 2>&1 | tee /dev/stderr |
  { ! grep -q "No cached ProjectGraph"; } && exit "${PIPESTATUS[0]}"'
# One program over every project that shares tsconfig.base.json's options checks each file once (per-project `tsc`
# re-checks every library a project imports); the web app has options of its own.
gate typecheck bash -c "npx tsc -p tsconfig.typecheck.json --incremental --tsBuildInfoFile '$CHECK_CACHE/typecheck.tsbuildinfo' &&
  npx tsc -p apps/web/tsconfig.json --noEmit --incremental --tsBuildInfoFile '$CHECK_CACHE/web.tsbuildinfo'"
wait "$stack"
gate migrations node tools/typeorm-cli.cjs migration:run

log "pytest: the Python packages"
bash tools/python/check.sh test "$RESULTS/pytest.xml" >"$RESULTS/pytest.log" 2>&1 || tail -40 "$RESULTS/pytest.log" >&2
log "jest: unit and integration suites"
npx jest --ci --selectProjects unit integration --json --outputFile="$RESULTS/jest.json" --maxWorkers=2 2>&1 |
  tee "$RESULTS/jest.log" | grep -E '^(PASS|FAIL)|●' >&2
log "jest: disruptive suites (stop and restart stack components), alone"
# The compose, Helm and observability checks touch no stack component: they use the core the disruptive suites
# leave idle.
{
  gate compose bash tools/ci/validate-compose.sh
  SELFTEST_JOBS=1 gate compose-validator bash docker/validate/selftest.sh
  gate helm bash tools/ci/validate-helm.sh
  gate observability bash tools/ci/validate-observability.sh
} &
compose=$!
npx jest --ci --selectProjects disruptive --runInBand --json --outputFile="$RESULTS/jest-disruptive.json" 2>&1 |
  tee "$RESULTS/jest-disruptive.log" | grep -E '^(PASS|FAIL)|●' >&2

wait "$compose"
node tools/test/summary.cjs "$RESULTS"
