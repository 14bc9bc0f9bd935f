"""Per-step training metrics: TRL's log entries as metrics.jsonl records, and their summary for the manifest."""

import json
import math
from pathlib import Path
from typing import Any

# metrics.jsonl key <- the key TRL's DPOTrainer logs
DPO_LOG_KEYS = {
    "loss": "loss",
    "rewardAccuracy": "rewards/accuracies",
    "rewardMargin": "rewards/margins",
    "learningRate": "learning_rate",
    "epoch": "epoch",
}


# ... and those TRL's GRPOTrainer logs: the mean reward of each step's rollouts, their spread within a prompt's
# group (0 everywhere: nothing to learn from), and the length of the replies.
GRPO_LOG_KEYS = {
    "loss": "loss",
    "reward": "reward",
    "rewardStd": "reward_std",
    # Each source's mean over the replies it scored this step (none: no prompt of its kind in the step).
    "chatReward": "rewards/labeller/mean",
    "sentientReward": "rewards/sentient/mean",
    "zeroStdShare": "frac_reward_zero_std",
    "completionLength": "completions/mean_length",
    "learningRate": "learning_rate",
    "epoch": "epoch",
}

# validation record key <- the key of TRL's evaluation metrics
DPO_VALIDATION_KEYS = {
    "valLoss": "eval_loss",
    "valAccuracy": "eval_rewards/accuracies",
    "valMargin": "eval_rewards/margins",
}
GRPO_VALIDATION_KEYS = {"valReward": "eval_reward", "valRewardStd": "eval_reward_std"}


def _finite(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def metric_record(
    step: int, logs: dict[str, Any], elapsed_seconds: float, keys: dict[str, str] = DPO_LOG_KEYS
) -> dict[str, Any] | None:
    """None for log entries that are not a training step (the end-of-training summary, evaluations)."""
    if "loss" not in logs:
        return None
    record: dict[str, Any] = {"step": step, **{key: _finite(logs.get(k)) for key, k in keys.items()}}
    record["elapsedSeconds"] = round(elapsed_seconds, 3)
    return record


def validation_record(
    step: int,
    metrics: dict[str, Any],
    kl: float | None,
    elapsed: float,
    keys: dict[str, str] = DPO_VALIDATION_KEYS,
) -> dict[str, Any]:
    """One evaluation on the validation users, with the drift from the parent measured at the same step."""
    return {
        "step": step,
        **{key: _finite(metrics.get(k)) for key, k in keys.items()},
        "klToParent": _finite(kl),
        "elapsedSeconds": round(elapsed, 3),
    }


def append_jsonl(path: Path, record: dict[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")


def summarize(
    records: list[dict[str, Any]], train_seconds: float, last_keys: tuple[str, ...] = ("rewardAccuracy",)
) -> dict[str, Any]:
    """`last_keys`: the template's headline training measures, as of its last step."""
    last = records[-1] if records else {}
    return {
        "steps": int(last.get("step", 0)),
        "trainSeconds": round(train_seconds, 3),
        "firstLoss": records[0]["loss"] if records else None,
        "finalLoss": last.get("loss"),
        **{key: last.get(key) for key in last_keys},
    }
