"""The `verl-grpo` job template: renders VeRL's multi-turn GRPO run for one `verl` dataset snapshot.

    python -m echoloop_verl.grpo_template --snapshot DIR --output DIR [--model-path HF_DIR] [--labeller-url URL]
        [--simulator-url URL] [--profiles FILE] [--n-gpus N] [--nnodes N] [--max-steps N] [--rollout-n N]
        [--lora-rank R] [--lora-alpha A] [--train-batch-size N] [--max-user-turns N] [--system-prompt TEXT]

VeRL needs a GPU Ray cluster, so this renders and runs nothing. It writes into OUTPUT:
    data/train.jsonl, data/val.jsonl   the snapshot's rows prepared for training (below)
    interaction.yaml                   interactions the rows name (VeRL's `interaction: [{name, class_name, config}]`)
    grpo.yaml                          a Hydra config over VeRL's ppo_trainer: GRPO, multi-turn rollout, LoRA, the
                                       labeller as custom reward function
    command.sh                         converts the data to parquet (VeRL's RLHFDataset reads parquet) and runs
                                       `python3 -m verl.trainer.main_ppo --config-path OUTPUT --config-name grpo`
    manifest.json                      {"template": "verl-grpo", "datasetId", "createdAt", "rendered", "adapters",
                                       "metrics", "note"}
and prints `ECHOLOOP_MANIFEST <absolute path of manifest.json>` as its last line on stdout. A bad input (a missing
or empty snapshot, a snapshot of another kind, a bad row) exits 2 with one line on stderr.

The rows. Each snapshot row (kind `verl`: data_source, prompt, ability, reward_model, extra_info) keeps its fields,
and its extra_info gains `history` (the prompt's user and assistant messages: what reward_fn.py sends the labeller
with the reply) and `interaction_kwargs = {"name": "single_reply"}`: the real user cannot answer a rollout, so the
episode ends after the policy's reply, and the labeller scores it. With `--profiles` (the sentient profiles jsonl),
each training-pool profile with an opener adds a simulator row: the prompt is the opener, `interaction_kwargs =
{"name": "sentient_user", "profile_id", "max_turns"}`, and the eval-runner's simulated user carries on the dialogue
(RLVER); the labeller scores the policy's first reply to the opener. Benchmark profiles are never used.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import uuid4

from .sentient_interaction import BaseInteraction

TEMPLATE = "verl-grpo"
PACKAGE_DIR = Path(__file__).resolve().parent
REWARD_FN_PATH = PACKAGE_DIR / "reward_fn.py"
REWARD_FN_NAME = "compute_score_batch"
SIMULATOR_DATA_SOURCE = "echoloop_simulator"


class TemplateError(ValueError):
    """An input the template cannot render from: exits 2 with this message."""


class SingleReplyInteraction(BaseInteraction):
    """The interaction of rows from real chats: nobody can answer the policy, so the episode ends after its reply."""

    async def start_interaction(self, instance_id: str | None = None, **kwargs: Any) -> str:
        return instance_id or str(uuid4())

    async def generate_response(
        self, instance_id: str, messages: list[dict[str, Any]], **kwargs: Any
    ) -> tuple[bool, str, float, dict[str, Any]]:
        return True, "", 0.0, {"end_reason": "single_reply"}

    async def calculate_score(self, instance_id: str, **kwargs: Any) -> float:
        return 0.0

    async def finalize_interaction(self, instance_id: str, **kwargs: Any) -> None:
        return None


# ------------------------------------------------------------------------------------------------------------- input


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as error:
                raise TemplateError(f"{path.name} line {number} is not JSON: {error}") from None
            if not isinstance(row, dict):
                raise TemplateError(f"{path.name} line {number} is not a JSON object")
            rows.append(row)
    return rows


def _read_parquet(path: Path) -> list[dict[str, Any]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise TemplateError(
            f"{path.name} is parquet and pyarrow is not installed here: export the snapshot as jsonl"
        ) from None
    return pq.read_table(path).to_pylist()


def read_snapshot(snapshot: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The snapshot's manifest and rows (checked): what a `verl` export wrote into one folder."""
    if not snapshot.is_dir():
        raise TemplateError(f"snapshot {snapshot} is not a folder")
    manifest_path = snapshot / "manifest.json"
    if not manifest_path.is_file():
        raise TemplateError(f"snapshot {snapshot} has no manifest.json")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except ValueError as error:
        raise TemplateError(f"{manifest_path} is not JSON: {error}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("id"), str) or not manifest["id"]:
        raise TemplateError(f"{manifest_path} has no dataset id")
    if manifest.get("kind") != "verl":
        raise TemplateError(f"snapshot {manifest['id']} is of kind {manifest.get('kind')!r}, not 'verl'")
    files = manifest.get("files")
    if not isinstance(files, list) or not files:
        raise TemplateError(f"snapshot {manifest['id']} lists no files")
    rows: list[dict[str, Any]] = []
    for entry in files:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or "/" in name or name.startswith("."):
            raise TemplateError(f"snapshot {manifest['id']} lists a bad file name {name!r}")
        path = snapshot / name
        if not path.is_file():
            raise TemplateError(f"snapshot {manifest['id']} is missing its file {name}")
        if name.endswith(".jsonl"):
            rows.extend(_read_jsonl(path))
        elif name.endswith(".parquet"):
            rows.extend(_read_parquet(path))
        else:
            raise TemplateError(f"{name}: the template reads jsonl or parquet snapshots")
    if not rows:
        raise TemplateError(f"snapshot {manifest['id']} is empty: no rows to train on")
    for number, row in enumerate(rows, 1):
        _check_row(row, number)
    return manifest, rows


def _check_row(row: dict[str, Any], number: int) -> None:
    prompt = row.get("prompt")
    if not isinstance(prompt, list) or not prompt:
        raise TemplateError(f"row {number} has no prompt")
    for message in prompt:
        if not isinstance(message, dict) or message.get("role") not in ("system", "user", "assistant"):
            raise TemplateError(f"row {number}: prompt messages must be {{role, content}}")
        if not isinstance(message.get("content"), str):
            raise TemplateError(f"row {number}: a prompt message has no text content")
    if prompt[-1]["role"] != "user":
        raise TemplateError(f"row {number}: the prompt must end with the user message")
    if not isinstance(row.get("data_source"), str):
        raise TemplateError(f"row {number} has no data_source")
    reward_model = row.get("reward_model")
    if not isinstance(reward_model, dict) or not isinstance(reward_model.get("ground_truth"), str):
        raise TemplateError(f"row {number}: reward_model.ground_truth must be a string (may be empty)")
    if not isinstance(row.get("extra_info"), dict):
        raise TemplateError(f"row {number} has no extra_info")


def read_training_profiles(path: Path) -> list[dict[str, Any]]:
    """The training pool's profiles with an opener (benchmark profiles are never trained on)."""
    if not path.is_file():
        raise TemplateError(f"profiles file {path} does not exist")
    profiles = [
        p
        for p in _read_jsonl(path)
        if p.get("pool") == "train" and p.get("id") and str(p.get("firstMessage", "")).strip()
    ]
    if not profiles:
        raise TemplateError(f"{path} has no training-pool profile with a firstMessage")
    return profiles


# --------------------------------------------------------------------------------------------------------- rendering


def _history(prompt: list[dict[str, Any]]) -> list[dict[str, str]]:
    return [{"role": m["role"], "content": m["content"]} for m in prompt if m["role"] in ("user", "assistant")]


def _with_system(prompt: list[dict[str, Any]], system_prompt: str | None) -> list[dict[str, Any]]:
    messages = [{"role": m["role"], "content": m["content"]} for m in prompt]
    if system_prompt and messages[0]["role"] != "system":
        messages.insert(0, {"role": "system", "content": system_prompt})
    return messages


def prepare_rows(
    rows: list[dict[str, Any]],
    profiles: list[dict[str, Any]],
    *,
    system_prompt: str | None,
    max_user_turns: int,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(train, val): the snapshot's rows (split by extra_info.split) and one simulator row per profile (train)."""
    train: list[dict[str, Any]] = []
    val: list[dict[str, Any]] = []
    for row in rows:
        extra_info = dict(row["extra_info"])
        extra_info["history"] = _history(row["prompt"])
        extra_info["interaction_kwargs"] = {"name": "single_reply"}
        prepared = {
            "data_source": row["data_source"],
            "prompt": _with_system(row["prompt"], system_prompt),
            "ability": row.get("ability") or "empathy",
            "reward_model": {"style": "model", "ground_truth": row["reward_model"]["ground_truth"]},
            "extra_info": extra_info,
        }
        (val if extra_info.get("split") == "test" else train).append(prepared)
    first_index = 1 + max([int(r["extra_info"].get("index", 0) or 0) for r in rows] + [len(rows)])
    for offset, profile in enumerate(sorted(profiles, key=lambda p: str(p["id"]))):
        opener = [{"role": "user", "content": str(profile["firstMessage"])}]
        train.append(
            {
                "data_source": SIMULATOR_DATA_SOURCE,
                "prompt": _with_system(opener, system_prompt),
                "ability": "empathy",
                "reward_model": {"style": "model", "ground_truth": ""},
                "extra_info": {
                    "split": "train",
                    "index": first_index + offset,
                    "history": opener,
                    "interaction_kwargs": {
                        "name": "sentient_user",
                        "profile_id": str(profile["id"]),
                        "max_turns": max_user_turns,
                    },
                },
            }
        )
    return train, val


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


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m echoloop_verl.grpo_template", description=__doc__.split("\n\n")[0])
    p.add_argument("--snapshot", required=True, help="a `verl` dataset snapshot folder (manifest.json + rows)")
    p.add_argument("--output", required=True, help="where to write grpo.yaml, command.sh, data/, manifest.json")
    p.add_argument("--model-path", default="Qwen/Qwen2.5-7B-Instruct", help="HF model folder or hub id")
    p.add_argument("--labeller-url", help="reward labeller base URL (else ECHOLOOP_LABELLER_URL at run time)")
    p.add_argument("--simulator-url", help="eval-runner base URL (else ECHOLOOP_SIMULATOR_URL at run time)")
    p.add_argument("--profiles", help="sentient profiles jsonl: its training pool adds simulator rows")
    p.add_argument("--system-prompt", help="a system message put before prompts that have none")
    p.add_argument("--n-gpus", type=_positive, default=8, help="GPUs per node")
    p.add_argument("--nnodes", type=_positive, default=1)
    p.add_argument("--max-steps", type=_positive, default=None, help="total training steps (default: one epoch)")
    p.add_argument("--rollout-n", type=int, default=4, help="GRPO group size (at least 2)")
    p.add_argument("--rollout-name", default="sglang", choices=["sglang", "vllm"])
    p.add_argument("--lora-rank", type=_positive, default=64)
    p.add_argument("--lora-alpha", type=_positive, default=32)
    p.add_argument("--lr", type=float, default=1e-6)
    p.add_argument("--train-batch-size", type=_positive, default=32)
    p.add_argument("--ppo-mini-batch-size", type=_positive, default=16)
    p.add_argument("--max-prompt-length", type=_positive, default=4096)
    p.add_argument("--max-response-length", type=_positive, default=4096)
    p.add_argument("--max-user-turns", type=_positive, default=8, help="simulated user turns per episode (RLVER: 8)")
    p.add_argument("--save-freq", type=int, default=50)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.rollout_n < 2:
            raise TemplateError(
                f"--rollout-n must be at least 2 for GRPO (a group of one has no advantage), got {args.rollout_n}"
            )
        manifest_path = render(args)
    except TemplateError as error:
        print(f"{TEMPLATE}: error: {error}", file=sys.stderr)
        return 2
    print(f"{TEMPLATE}: rendered {manifest_path.parent} (render only: VeRL needs a GPU cluster)")
    print(f"ECHOLOOP_MANIFEST {manifest_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
