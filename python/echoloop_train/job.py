"""What every training template's job does around its trainer: the shared flags, the base model, the plan, the
progress lines and metrics.jsonl, the adapter kept only when training generalised, the manifest, and exit codes."""

import argparse
import os
import shutil
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .base_model import ensure_hf_base
from .cache import REPO_ROOT, file_sha256
from .manifest import Adapter, BaseModel, build_manifest, parent_of, peak_rss_mb, write_json_atomic
from .metrics import append_jsonl, metric_record, summarize
from .policy import TrainOutcome, TrainSettings
from .progress import emit_manifest, emit_progress
from .rows import InvalidInput
from .selection import plan_training

DEFAULT_BASE_GGUF = REPO_ROOT / ".infra" / "models" / "smollm2-135m-instruct.Q4_1.gguf"

# The template's trainer, its data and settings bound: called with the keywords hf_base, adapter_dir, plan (a
# TrainingPlan), parent_id, on_step and on_validation.
Trainer = Callable[..., TrainOutcome]


def add_common_arguments(parser: argparse.ArgumentParser, *, epochs: float, learning_rate: float, beta: float) -> None:
    """The flags every trl template takes (the rl-orchestrator passes them alike), with the template's defaults."""
    parser.add_argument("--snapshot", type=Path, required=True, help="dir holding train.jsonl and validation.jsonl")
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--dataset-id", required=True)
    parser.add_argument("--base-gguf", type=Path, default=DEFAULT_BASE_GGUF)
    parser.add_argument(
        "--parent-adapter", type=Path, help="a PEFT adapter dir to train further (its refresh's parent)"
    )
    parser.add_argument("--max-steps", type=int, default=200, help="a ceiling on steps; --epochs sets them")
    parser.add_argument("--epochs", type=float, default=epochs)
    parser.add_argument("--patience", type=int, default=2, help="evaluations without a better one before stopping")
    parser.add_argument(
        "--max-kl",
        type=float,
        default=1.0,
        help="the trust region: steps drifting further from the parent (nats per token) are not kept",
    )
    parser.add_argument("--eval-every", type=int, help="steps between evaluations (default: twice an epoch)")
    parser.add_argument("--batch-size", type=int, default=2)
    parser.add_argument("--learning-rate", type=float, default=learning_rate)
    parser.add_argument("--beta", type=float, default=beta)
    parser.add_argument("--lora-r", type=int, default=8)
    parser.add_argument("--lora-alpha", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))


def check_common(settings: TrainSettings) -> None:
    """The checks every template's settings pass (a bad value exits 2 before torch loads)."""
    for name in ("max_steps", "patience", "batch_size", "lora_r", "lora_alpha", "threads"):
        if getattr(settings, name) < 1:
            raise InvalidInput(f"--{name.replace('_', '-')} must be at least 1")
    if settings.eval_every is not None and settings.eval_every < 1:
        raise InvalidInput("--eval-every must be at least 1")
    if min(settings.learning_rate, settings.epochs, settings.max_kl) <= 0:
        raise InvalidInput("--learning-rate, --epochs and --max-kl must be positive")


def checked_inputs(args: argparse.Namespace) -> Path | None:
    """The base weights and the parent adapter, checked; the parent's resolved path (None: a fresh adapter)."""
    if not args.base_gguf.is_file():
        raise InvalidInput(f"base GGUF {args.base_gguf} does not exist (bash tools/stack/model.sh install)")
    parent = args.parent_adapter
    if parent is not None and not (parent / "adapter_model.safetensors").is_file():
        raise InvalidInput(f"parent adapter {parent} holds no adapter_model.safetensors")
    return parent.resolve() if parent is not None else None


@dataclass(frozen=True)
class Template:
    name: str
    # metrics.jsonl key <- the trainer's log key, and the keys the manifest's summary repeats from the last step
    log_keys: dict[str, str]
    headline: tuple[str, ...]


def run(
    template: Template,
    args: argparse.Namespace,
    settings: TrainSettings,
    rows: tuple[int, int],
    data: dict[str, int],
    parent: Path | None,
    train: Trainer,
) -> Path:
    """`rows`: training and validation rows (the plan's steps follow the first); `data`: the manifest's counts."""
    os.environ.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    output = args.output.resolve()
    output.mkdir(parents=True, exist_ok=True)
    manifest_path = output / "manifest.json"
    manifest_path.unlink(missing_ok=True)
    metrics_path = output / "metrics.jsonl"
    metrics_path.unlink(missing_ok=True)

    emit_progress("base", status="started")
    began = time.monotonic()
    gguf = args.base_gguf.resolve()
    gguf_sha256 = file_sha256(gguf)
    base = BaseModel(gguf=gguf, gguf_sha256=gguf_sha256, hf=ensure_hf_base(gguf, gguf_sha256))
    emit_progress("base", status="done", seconds=round(time.monotonic() - began, 1))

    plan = plan_training(rows[0], settings.batch_size, settings.epochs, settings.max_steps, settings.eval_every)
    records: list[dict] = []

    def on_step(step: int, logs: dict, elapsed: float) -> None:
        record = metric_record(step, logs, elapsed, template.log_keys)
        if record is None:
            return
        records.append(record)
        append_jsonl(metrics_path, record)
        emit_progress("train", step=step, of=plan.steps, **{k: v for k, v in record.items() if k != "step"})

    def on_validation(record: dict) -> None:
        append_jsonl(metrics_path, {"split": "validation", **record})
        emit_progress("validate", of=plan.steps, **record)

    # The adapter dir appears complete or not at all: the best step's adapter is written into a partial dir first.
    # vLLM loads this PEFT folder as it is (no conversion).
    partial = output / ".adapter.partial"
    shutil.rmtree(partial, ignore_errors=True)
    emit_progress("train", status="started", of=plan.steps, rows=rows[0], validation=rows[1])
    lineage = parent_of(parent)
    parent_id = f"{gguf_sha256}:{lineage['sha256'] if lineage else 'base'}"
    outcome = train(
        hf_base=base.hf,
        adapter_dir=partial,
        plan=plan,
        parent_id=parent_id,
        on_step=on_step,
        on_validation=on_validation,
    )
    adapter_dir = output / "adapter"
    shutil.rmtree(adapter_dir, ignore_errors=True)
    adapters: list[Adapter] = []
    if outcome.selection["generalised"]:
        partial.rename(adapter_dir)
        adapters.append(Adapter("peft", adapter_dir, file_sha256(adapter_dir / "adapter_model.safetensors")))
    else:
        shutil.rmtree(partial, ignore_errors=True)
    manifest = build_manifest(
        template=template.name,
        dataset_id=args.dataset_id,
        base=base,
        adapters=adapters,
        metrics={**summarize(records, outcome.seconds, template.headline), "selection": outcome.selection},
        hyperparameters={**settings.as_manifest(), **plan.as_manifest(), "loraR": outcome.lora_r},
        data=data,
        parent=lineage,
        peak_rss_mb=peak_rss_mb(),
    )
    write_json_atomic(manifest_path, manifest)
    return manifest_path


def main(name: str, prepare: Callable[[], Callable[[], Path]]) -> int:
    """`prepare()` parses and checks every input (InvalidInput: exit 2, one line, before torch loads) and returns
    the run; any failure of the run is exit 1 with its traceback; success prints the manifest's path last."""
    try:
        start = prepare()
    except InvalidInput as e:
        print(f"{name}: invalid input: {e}", file=sys.stderr)
        return 2
    try:
        manifest_path = start()
    except Exception as e:
        traceback.print_exc()
        print(f"{name}: failed: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    emit_manifest(manifest_path)
    return 0
