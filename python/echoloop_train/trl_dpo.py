"""Job template `trl-dpo`: DPO LoRA training on a snapshot's preference pairs, on CPU.

    python -m echoloop_train.trl_dpo --snapshot DIR --output DIR --dataset-id ID [--base-gguf PATH] [...]

Exit codes: 0 done (OUTPUT/manifest.json written last), 2 invalid input (before torch is loaded), 1 any other failure.
"""

import argparse
import os
import resource
import shutil
import sys
import time
import traceback
from pathlib import Path

from .base_model import ensure_hf_base
from .cache import REPO_ROOT, file_sha256
from .dpo import DpoSettings, train
from .manifest import Adapter, BaseModel, build_manifest, write_json_atomic
from .metrics import append_jsonl, metric_record, summarize
from .progress import emit_manifest, emit_progress
from .rows import InvalidInput, Pair, load_pairs

DEFAULT_BASE_GGUF = REPO_ROOT / ".infra" / "models" / "smollm2-135m-instruct.Q4_1.gguf"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m echoloop_train.trl_dpo", description=__doc__.splitlines()[0])
    parser.add_argument("--snapshot", type=Path, required=True, help="dir holding train.jsonl")
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--dataset-id", required=True)
    parser.add_argument("--base-gguf", type=Path, default=DEFAULT_BASE_GGUF)
    parser.add_argument("--max-steps", type=int, default=8)
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
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        beta=args.beta,
        lora_r=args.lora_r,
        lora_alpha=args.lora_alpha,
        max_length=args.max_length,
        seed=args.seed,
        threads=args.threads,
    )
    for name in ("max_steps", "batch_size", "lora_r", "lora_alpha", "max_length", "threads"):
        if getattr(settings, name) < 1:
            raise InvalidInput(f"--{name.replace('_', '-')} must be at least 1")
    if settings.learning_rate <= 0 or settings.beta <= 0:
        raise InvalidInput("--learning-rate and --beta must be positive")
    return settings


def peak_rss_mb() -> float:
    """The larger of this process's peak and its largest child's; ru_maxrss is in KiB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


def run(args: argparse.Namespace, settings: DpoSettings, pairs: list[Pair]) -> Path:
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

    records: list[dict] = []

    def on_step(step: int, logs: dict, elapsed: float) -> None:
        record = metric_record(step, logs, elapsed)
        if record is None:
            return
        records.append(record)
        append_jsonl(metrics_path, record)
        emit_progress("train", step=step, of=settings.max_steps, **{k: v for k, v in record.items() if k != "step"})

    # The adapter dir appears complete or not at all: it is written into a partial dir first. vLLM loads this PEFT
    # folder as it is (no conversion).
    partial = output / ".adapter.partial"
    shutil.rmtree(partial, ignore_errors=True)
    emit_progress("train", status="started", of=settings.max_steps, pairs=len(pairs))
    train_seconds = train(pairs, base.hf, partial, settings, on_step)
    adapter_dir = output / "adapter"
    shutil.rmtree(adapter_dir, ignore_errors=True)
    partial.rename(adapter_dir)

    adapters = [Adapter("peft", adapter_dir, file_sha256(adapter_dir / "adapter_model.safetensors"))]
    manifest = build_manifest(
        dataset_id=args.dataset_id,
        base=base,
        adapters=adapters,
        metrics=summarize(records, train_seconds),
        hyperparameters=settings.as_manifest(),
        train_pairs=len(pairs),
        peak_rss_mb=peak_rss_mb(),
    )
    write_json_atomic(manifest_path, manifest)
    return manifest_path


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        settings = settings_from(args)
        if not args.base_gguf.is_file():
            raise InvalidInput(f"base GGUF {args.base_gguf} does not exist (bash tools/stack/model.sh install)")
        pairs = load_pairs(args.snapshot)
    except InvalidInput as e:
        print(f"trl-dpo: invalid input: {e}", file=sys.stderr)
        return 2
    try:
        manifest_path = run(args, settings, pairs)
    except Exception as e:
        traceback.print_exc()
        print(f"trl-dpo: failed: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    emit_manifest(manifest_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
