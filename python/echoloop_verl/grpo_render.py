"""What the `verl-grpo` template writes: the prepared rows, VeRL's interaction and GRPO configs, and command.sh."""

from __future__ import annotations

import argparse
import json
import shlex
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .grpo_inputs import TemplateError, read_snapshot, read_training_profiles
from .grpo_rows import prepare_rows

TEMPLATE = "verl-grpo"
PACKAGE_DIR = Path(__file__).resolve().parent
REWARD_FN_PATH = PACKAGE_DIR / "reward_fn.py"
REWARD_FN_NAME = "compute_score_batch"


def _dump_yaml(value: Any) -> str:
    try:
        import yaml
    except ImportError:  # JSON is YAML
        return json.dumps(value, indent=2, ensure_ascii=False) + "\n"
    return yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=120)


def interaction_config(simulator_url: str | None) -> dict[str, Any]:
    sentient: dict[str, Any] = {"api_key_env": "ECHOLOOP_SIMULATOR_KEY", "timeout_s": 600, "retries": 4}
    if simulator_url:
        sentient["base_url"] = simulator_url
    return {
        "interaction": [
            {"name": "sentient_user", "class_name": "echoloop_verl.SentientUserInteraction", "config": sentient},
            {"name": "single_reply", "class_name": "echoloop_verl.grpo_template.SingleReplyInteraction", "config": {}},
        ]
    }


def grpo_config(args: argparse.Namespace, output: Path, dataset_id: str, has_val: bool) -> dict[str, Any]:
    data_dir = output / "data"
    train_file = str(data_dir / "train.parquet")
    val_file = str(data_dir / ("val.parquet" if has_val else "train.parquet"))
    return {
        # Everything not set here keeps VeRL's defaults (verl/trainer/config/ppo_trainer.yaml).
        "hydra": {"searchpath": ["pkg://verl.trainer.config"]},
        "defaults": ["ppo_trainer", "_self_"],
        "data": {
            "train_files": [train_file],
            "val_files": [val_file],
            "prompt_key": "prompt",
            "train_batch_size": args.train_batch_size,
            "max_prompt_length": args.max_prompt_length,
            "max_response_length": args.max_response_length,
            "filter_overlong_prompts": True,
            "truncation": "left",
            "return_raw_chat": True,
            "shuffle": True,
        },
        "algorithm": {"adv_estimator": "grpo", "use_kl_in_reward": False, "norm_adv_by_std_in_grpo": True},
        "actor_rollout_ref": {
            "hybrid_engine": True,
            "model": {
                "path": args.model_path,
                "lora_rank": args.lora_rank,
                "lora_alpha": args.lora_alpha,
                "target_modules": "all-linear",
                "use_remove_padding": True,
                "enable_gradient_checkpointing": True,
            },
            "actor": {
                "optim": {"lr": args.lr},
                "ppo_mini_batch_size": min(args.ppo_mini_batch_size, args.train_batch_size),
                "ppo_micro_batch_size_per_gpu": 2,
                # RLVER trains with kl_coef 0.
                "use_kl_loss": False,
                "entropy_coeff": 0,
            },
            "rollout": {
                "name": args.rollout_name,
                "mode": "async",
                "n": args.rollout_n,
                "temperature": 1.0,
                "load_format": "safetensors",
                "tensor_model_parallel_size": 1,
                "gpu_memory_utilization": 0.5,
                "log_prob_micro_batch_size_per_gpu": 4,
                "multi_turn": {
                    "enable": True,
                    "interaction_config_path": str(output / "interaction.yaml"),
                    "max_user_turns": args.max_user_turns,
                    "max_assistant_turns": args.max_user_turns + 1,
                },
            },
            "ref": {"log_prob_micro_batch_size_per_gpu": 4},
        },
        "reward_model": {"enable": False, "reward_manager": "batch"},
        "custom_reward_function": {"path": str(REWARD_FN_PATH), "name": REWARD_FN_NAME},
        "trainer": {
            "project_name": "echoloop",
            "experiment_name": f"{TEMPLATE}-{dataset_id}",
            "logger": ["console"],
            "n_gpus_per_node": args.n_gpus,
            "nnodes": args.nnodes,
            "total_epochs": 1,
            "total_training_steps": args.max_steps,
            "save_freq": args.save_freq,
            "test_freq": args.save_freq if has_val else -1,
            "val_before_train": False,
            "default_local_dir": str(output / "checkpoints"),
        },
    }


_TO_PARQUET = """\
import sys
from pathlib import Path

import datasets

for source in sorted(Path(sys.argv[1]).glob("*.jsonl")):
    datasets.load_dataset("json", data_files=str(source), split="train").to_parquet(str(source.with_suffix(".parquet")))
"""


def command_script(args: argparse.Namespace, output: Path, dataset_id: str) -> str:
    q = shlex.quote
    lines = [
        "#!/usr/bin/env bash",
        f"# Rendered by echoloop_verl.grpo_template ({TEMPLATE}) for dataset {dataset_id}.",
        "# Run it on the GPU Ray cluster's head node.",
        "# Needs: VeRL (with its `datasets` dependency) and this echoloop_verl package importable by every worker.",
        "set -euo pipefail",
        f"export PYTHONPATH={q(str(PACKAGE_DIR.parent))}${{PYTHONPATH:+:$PYTHONPATH}}",
    ]
    for name, value, what in (
        ("ECHOLOOP_LABELLER_URL", args.labeller_url, "the reward labeller base URL"),
        ("ECHOLOOP_SIMULATOR_URL", args.simulator_url, "the eval-runner base URL"),
    ):
        if value:
            lines.append(f'if [ -z "${{{name}:-}}" ]; then export {name}={q(value)}; fi')
        else:
            lines.append(f': "${{{name}:?set {name} to {what}}}"')
    lines += [
        ': "${ECHOLOOP_LABELLER_KEY:?set ECHOLOOP_LABELLER_KEY to a reward-labeller API key (role experimenter)}"',
        ': "${ECHOLOOP_SIMULATOR_KEY:?set ECHOLOOP_SIMULATOR_KEY to an eval-runner API key (role experimenter)}"',
        "# VeRL's RLHFDataset reads parquet: convert the prepared rows.",
        f"python3 - {q(str(output / 'data'))} <<'PY'",
        _TO_PARQUET.rstrip("\n"),
        "PY",
        f'exec python3 -m verl.trainer.main_ppo --config-path {q(str(output))} --config-name grpo "$@"',
    ]
    return "\n".join(lines) + "\n"


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def render(args: argparse.Namespace) -> Path:
    """Writes everything into args.output; returns the manifest's absolute path."""
    manifest, rows = read_snapshot(Path(args.snapshot))
    profiles = read_training_profiles(Path(args.profiles)) if args.profiles else []
    train, val = prepare_rows(rows, profiles, system_prompt=args.system_prompt, max_user_turns=args.max_user_turns)
    if not train:
        raise TemplateError(f"snapshot {manifest['id']} has only held-out (test) rows: nothing to train on")
    output = Path(args.output).resolve()
    (output / "data").mkdir(parents=True, exist_ok=True)
    _write_jsonl(output / "data" / "train.jsonl", train)
    if val:
        _write_jsonl(output / "data" / "val.jsonl", val)
    (output / "interaction.yaml").write_text(
        "# VeRL interactions: actor_rollout_ref.rollout.multi_turn.interaction_config_path\n"
        + _dump_yaml(interaction_config(args.simulator_url)),
        encoding="utf-8",
    )
    (output / "grpo.yaml").write_text(
        f"# {TEMPLATE} for dataset {manifest['id']}: python3 -m verl.trainer.main_ppo --config-name grpo\n"
        + _dump_yaml(grpo_config(args, output, manifest["id"], bool(val))),
        encoding="utf-8",
    )
    command = output / "command.sh"
    command.write_text(command_script(args, output, manifest["id"]), encoding="utf-8")
    command.chmod(0o755)
    manifest_path = output / "manifest.json"
    manifest_path.write_text(
        json.dumps(
            {
                "template": TEMPLATE,
                "datasetId": manifest["id"],
                "createdAt": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                "rendered": ["grpo.yaml", "command.sh"],
                "adapters": [],
                "metrics": {},
                "note": "render only: VeRL needs a GPU cluster",
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    return manifest_path
