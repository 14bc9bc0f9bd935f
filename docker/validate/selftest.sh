#!/usr/bin/env bash
# Tests tools/ci/validate-compose.sh: it passes on docker/compose.yml and docker/Dockerfile as they are,
# and fails, for the right reason, on copies broken one way each (written to a temp folder; the
# repository is never touched). Prints a `N passed, N failed` summary; exits 1 when any case failed.
#
#   bash docker/validate/selftest.sh
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VALIDATE="$ROOT/tools/ci/validate-compose.sh"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/results"
# Cases are independent: they run JOBS at a time (default: one per core), and print in order at the end.
JOBS="${SELFTEST_JOBS:-$(nproc)}"
cases=0

# Sets the caller's `result` to the next case's result file (without its .ok/.fail suffix).
next_result() {
  cases=$((cases + 1))
  result="$(printf '%s/results/%03d' "$WORK" "$cases")"
}

run() { # run NAME EXPECTED_RC EXPECTED_TEXT [validator args...]
  local name="$1" want_rc="$2" want_text="$3" result
  shift 3
  next_result
  while [[ $(jobs -rp | wc -l) -ge $JOBS ]]; do wait -n; done
  (
    out="$("$VALIDATE" "$@" 2>&1)"
    rc=$?
    if [[ $rc -eq $want_rc ]] && grep -qF -- "$want_text" <<<"$out"; then
      printf 'OK   %s\n' "$name" >"$result.ok"
    else
      {
        printf 'FAIL %s: exit %s (wanted %s), output %s "%s":\n' "$name" "$rc" "$want_rc" \
          "$([[ $want_rc -eq 0 ]] && echo lacks || echo "lacks the expected")" "$want_text"
        sed 's/^/    /' <<<"$out"
      } >"$result.fail"
    fi
  ) &
}

# broken NAME FILE OLD NEW EXPECTED_TEXT [extra validator args]: copy FILE, replace OLD (literal,
# must occur) by NEW, expect the validator to fail with a line containing EXPECTED_TEXT.
broken() {
  local name="$1" file="$2" old="$3" new="$4" want="$5"
  shift 5
  local dir="$WORK/$(echo "$name" | tr -c 'a-zA-Z0-9' '-')"
  mkdir -p "$dir"
  local copy="$dir/$(basename "$file")"
  if ! OLD="$old" NEW="$new" python3 - "$file" "$copy" <<'PY'; then
import os, sys
src, dst = sys.argv[1], sys.argv[2]
text = open(src, encoding="utf-8").read()
old, new = os.environ["OLD"], os.environ["NEW"]
if old not in text:
    sys.exit(f"{old!r} not found in {src}")
open(dst, "w", encoding="utf-8").write(text.replace(old, new))
PY
    local result
    next_result
    printf 'FAIL %s: could not make the broken copy (the original changed?)\n' "$name" >"$result.fail"
    return
  fi
  case "$(basename "$file")" in
    compose.yml) run "$name" 1 "$want" --compose "$copy" --project-directory "$ROOT/docker" "$@" ;;
    .env.example) run "$name" 1 "$want" --env-file "$copy" "$@" ;;
    Dockerfile) run "$name" 1 "$want" --dockerfile "$copy" "$@" ;;
  esac
}

C="$ROOT/docker/compose.yml"
E="$ROOT/docker/.env.example"
D="$ROOT/docker/Dockerfile"

run "the real compose.yml, .env.example and Dockerfile pass" 0 "validate-compose: OK"

broken "YAML syntax error" "$C" "services:" "services: [" "FAIL yaml"
broken "typo in a service key (schema)" "$C" "    hostname: kafka" "    hostnme: kafka" "FAIL compose-spec schema"
broken "build.args.APP names no app" "$C" "        APP: reward-labeller" "        APP: reward-labeler" "FAIL build.args.APP"
broken "depends_on an unknown service" "$C" "  migrate:
    condition: service_completed_successfully" "  migrations:
    condition: service_completed_successfully" "depends on unknown service migrations"
broken "hard-coded secret" "$C" "      POSTGRES_PASSWORD: \${POSTGRES_PASSWORD:?" "      POSTGRES_PASSWORD: hunter2 #\${POSTGRES_PASSWORD:?" "FAIL secrets come from required variables"
broken "env the app requires is missing (JWT_SECRET)" "$C" "      JWT_SECRET: \${JWT_SECRET:?" "      #JWT_SECRET: \${JWT_SECRET:?" "JWT_SECRET is required"
broken "env left to a loopback default (RAY_DASHBOARD_URL)" "$C" "      RAY_DASHBOARD_URL: \${RAY_DASHBOARD_URL:?" "      #RAY_DASHBOARD_URL: \${RAY_DASHBOARD_URL:?" "RAY_DASHBOARD_URL is not set and its default"
broken "env variable no app reads (typo)" "$C" "      LABELLER_GROUP_ID:" "      LABELER_GROUP_ID:" "LABELER_GROUP_ID is set but"
broken "invalid env value (LOG_LEVEL)" "$C" "  LOG_LEVEL: \${LOG_LEVEL:-info}" "  LOG_LEVEL: verbose" "LOG_LEVEL: Invalid"
broken "KAFKA_BROKERS not the advertised listener" "$C" "  KAFKA_BROKERS: kafka:9092" "  KAFKA_BROKERS: localhost:9092" "FAIL kafka wiring"
broken "vLLM LoRA rank vLLM does not accept" "$C" "--max-lora-rank=\${VLLM_MAX_LORA_RANK:-64}" "--max-lora-rank=48" "--max-lora-rank 48 not in"
broken "vLLM without runtime LoRA updating" "$C" "      VLLM_ALLOW_RUNTIME_LORA_UPDATING: 'True'" "      VLLM_ALLOW_RUNTIME_LORA_UPDATING: 'False'" "VLLM_ALLOW_RUNTIME_LORA_UPDATING must be"
broken "vLLM without the GPU reservation" "$C" "            - driver: nvidia" "            - driver: amd" "no deploy.resources.reservations.devices entry"
broken "gateway asks vLLM for another model name" "$C" "      LLM_MODEL: \${LLM_MODEL:-echoloop-base}" "      LLM_MODEL: other-model" "LLM_MODEL 'other-model' != --served-model-name"
broken "an app publishes a port" "$C" "    depends_on: *app-depends

  rl-orchestrator:" "    ports:
      - 3001:3001
    depends_on: *app-depends

  rl-orchestrator:" "FAIL only chat-gateway publish ports"
broken "unpinned image" "$C" "image: apache/kafka:3.9.1" "image: apache/kafka" "has no tag"
broken "env file lacks a required secret" "$E" "LLM_API_KEY=change-me-llm-key" "" "required variable LLM_API_KEY is missing a value"
broken "Dockerfile lint finding (hadolint)" "$D" "ARG NODE_IMAGE=node:20-bookworm-slim" "ARG NODE_IMAGE=node:20-bookworm-slim
FROM \${NODE_IMAGE} AS unused
RUN cd /tmp && echo hi" "FAIL hadolint"

wait
cat "$WORK"/results/*
passed=$(find "$WORK/results" -name '*.ok' | wc -l)
failed=$(find "$WORK/results" -name '*.fail' | wc -l)
echo "validate-compose selftest: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
