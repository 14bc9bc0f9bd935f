#!/usr/bin/env bash
# Runs the trl-dpo job template as a Ray job through the Jobs REST API (the way the orchestrator submits it),
# waits for it and prints its logs. Needs the Ray head: tools/stack/ray.sh up.
# Usage: tools/rl/trl-dpo-ray.sh --snapshot DIR --output DIR --dataset-id ID [more trl_dpo arguments]
# Env: RAY_DASHBOARD_URL (http://127.0.0.1:8265). Exits 0 when the job SUCCEEDED, 1 otherwise.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RAY_DASHBOARD_URL=${RAY_DASHBOARD_URL:-http://127.0.0.1:8265}
(($#)) || { sed -n '4p' "${BASH_SOURCE[0]}" >&2; exit 2; }

python=$(bash "$ROOT/tools/python/venv.sh" train)
# Paths are made absolute from the caller's directory: the job runs in the Ray head's working directory.
args=()
previous=
for arg in "$@"; do
  if [[ $previous =~ ^--(snapshot|output|base-gguf)$ ]]; then arg=$(realpath -m "$arg"); fi
  args+=("$arg")
  previous=$arg
done
body=$(python3 - "$python" "$ROOT/python" "${args[@]}" <<'PY'
import json, shlex, sys
python, pythonpath, *args = sys.argv[1:]
print(json.dumps({
    "entrypoint": shlex.join([python, "-m", "echoloop_train.trl_dpo", *args]),
    "runtime_env": {"env_vars": {"PYTHONPATH": pythonpath, "PYTHONUNBUFFERED": "1"}},
    "entrypoint_num_cpus": 1,
}))
PY
)
field() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

id=$(curl -fsS -X POST -H 'content-type: application/json' -d "$body" "$RAY_DASHBOARD_URL/api/jobs/" |
  field submission_id)
echo "submitted $id" >&2
while :; do
  status=$(curl -fsS "$RAY_DASHBOARD_URL/api/jobs/$id" | field status)
  [[ $status =~ ^(PENDING|RUNNING)$ ]] || break
  sleep 1
done
curl -fsS "$RAY_DASHBOARD_URL/api/jobs/$id/logs" | field logs
echo "$id $status" >&2
[[ $status == SUCCEEDED ]]
