"""The `verl-grpo` template's training rows: the snapshot's rows and the training profiles' openers, for VeRL."""

from __future__ import annotations

from typing import Any

SIMULATOR_DATA_SOURCE = "echoloop_simulator"


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
