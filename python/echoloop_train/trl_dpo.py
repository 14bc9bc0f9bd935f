"""Job template `trl-dpo`: DPO LoRA training on a snapshot's preference pairs, validated on its own users.

    python -m echoloop_train.trl_dpo --snapshot DIR --output DIR --dataset-id ID [--parent-adapter DIR] [...]

The snapshot holds train.jsonl and validation.jsonl (other users than train's). Steps follow the data (--epochs,
capped by --max-steps); the step kept is the best on validation, and training stops --patience evaluations after
it. A run whose best step did not generalise ends with a manifest that says so and no adapter.

Exit codes: 0 done (OUTPUT/manifest.json written last), 2 invalid input (before torch is loaded), 1 any other failure.
"""

import argparse
import os
import resource
import shutil
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from .base_model import ensure_hf_base
from .cache import REPO_ROOT, file_sha256
from .dpo import DpoSettings, train
from .manifest import Adapter, BaseModel, build_manifest, write_json_atomic
from .metrics import append_jsonl, metric_record, summarize
from .progress import emit_manifest, emit_progress
from .rows import InvalidInput, Pair, load_pairs
from .selection import plan_training

DEFAULT_BASE_GGUF = REPO_ROOT / ".infra" / "models" / "smollm2-135m-instruct.Q4_1.gguf"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m echoloop_train.trl_dpo", description=__doc__.splitlines()[0])
    parser.add_argument("--snapshot", type=Path, required=True, help="dir holding train.jsonl")
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--dataset-id", required=True)
    parser.add_argument("--base-gguf", type=Path, default=DEFAULT_BASE_GGUF)
    parser.add_argument("--parent-adapter", type=Path, help="a PEFT adapter dir to train further (its refresh's parent)")
    parser.add_argument("--max-steps", type=int, default=200, help="a ceiling on steps; --epochs sets them")
    parser.add_argument("--epochs", type=float, default=3.0)
    parser.add_argument("--patience", type=int, default=2, help="evaluations without a better one before stopping")
    parser.add_argument(
        "--max-kl",
        type=float,
        default=1.0,
        help="the trust region: steps drifting further from the parent (nats per token) are not kept",
    )
    parser.add_argument("--eval-every", type=int, help="steps between evaluations (default: twice an epoch)")
    parser.add_argument("--batch-size", type=int, default=2)
    parser.add_argument("--learning-rate", type=float, default=5e-4)
    parser.add_argument("--beta", type=float, default=0.1)
    parser.add_argument("--lora-r", type=int, default=8)
    parser.add_argument("--lora-alpha", type=int, default=16)
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    return parser.parse_args(argv)


def settings_from(args: argparse.Namespace) -> DpoSettings:
    settings = DpoSettings(
        max_steps=args.max_steps,
        epochs=args.epochs,
        patience=args.patience,
        max_kl=args.max_kl,
        eval_every=args.eval_every,
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        beta=args.beta,
        lora_r=args.lora_r,
        lora_alpha=args.lora_alpha,
        max_length=args.max_length,
        seed=args.seed,
        threads=args.threads,
    )
    for name in ("max_steps", "patience", "batch_size", "lora_r", "lora_alpha", "max_length", "threads"):
        if getattr(settings, name) < 1:
            raise InvalidInput(f"--{name.replace('_', '-')} must be at least 1")
    if settings.eval_every is not None and settings.eval_every < 1:
        raise InvalidInput("--eval-every must be at least 1")
    if min(settings.learning_rate, settings.beta, settings.epochs, settings.max_kl) <= 0:
        raise InvalidInput("--learning-rate, --beta, --epochs and --max-kl must be positive")
    return settings


def peak_rss_mb() -> float:
    """The larger of this process's peak and its largest child's; ru_maxrss is in KiB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


@dataclass(frozen=True)
class Data:
    train: list[Pair]
    validation: list[Pair]
    parent: Path | None


def run(args: argparse.Namespace, settings: DpoSettings, data: Data) -> Path:
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

    plan = plan_training(len(data.train), settings.batch_size, settings.epochs, settings.max_steps, settings.eval_every)
    records: list[dict] = []

    def on_step(step: int, logs: dict, elapsed: float) -> None:
        record = metric_record(step, logs, elapsed)
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
    emit_progress("train", status="started", of=plan.steps, pairs=len(data.train), validation=len(data.validation))
    parent = parent_of(data.parent)
    parent_id = f"{gguf_sha256}:{parent['sha256'] if parent else 'base'}"
    outcome = train(
        data.train, data.validation, base.hf, partial, settings, plan, data.parent, parent_id, on_step, on_validation
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
        dataset_id=args.dataset_id,
        base=base,
        adapters=adapters,
        metrics={**summarize(records, outcome.seconds), "selection": outcome.selection},
        hyperparameters={**settings.as_manifest(), **plan.as_manifest(), "loraR": outcome.lora_r},
        data={"trainPairs": len(data.train), "validationPairs": len(data.validation)},
        parent=parent,
        peak_rss_mb=peak_rss_mb(),
    )
    write_json_atomic(manifest_path, manifest)
    return manifest_path


def load_data(args: argparse.Namespace) -> Data:
    """Everything the run reads, checked before the training stack loads."""
    if not args.base_gguf.is_file():
        raise InvalidInput(f"base GGUF {args.base_gguf} does not exist (bash tools/stack/model.sh install)")
    parent = args.parent_adapter
    if parent is not None and not (parent / "adapter_model.safetensors").is_file():
        raise InvalidInput(f"parent adapter {parent} holds no adapter_model.safetensors")
    return Data(
        train=load_pairs(args.snapshot / "train.jsonl"),
        validation=load_pairs(args.snapshot / "validation.jsonl"),
        parent=parent.resolve() if parent is not None else None,
    )


def parent_of(adapter: Path | None) -> dict[str, str] | None:
    if adapter is None:
        return None
    return {"adapter": str(adapter), "sha256": file_sha256(adapter / "adapter_model.safetensors")}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        settings = settings_from(args)
        data = load_data(args)
    except InvalidInput as e:
        print(f"trl-dpo: invalid input: {e}", file=sys.stderr)
        return 2
    try:
        manifest_path = run(args, settings, data)
    except Exception as e:
        traceback.print_exc()
        print(f"trl-dpo: failed: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    emit_manifest(manifest_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
