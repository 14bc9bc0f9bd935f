"""VeRL custom reward function: the policy's reply scored by the reward labeller (`POST /v1/rewards/score`).

Point VeRL at this file (it is loaded by path, so it imports nothing from its package):

    custom_reward_function.path=<this file>
    custom_reward_function.name=compute_score_batch   # reward_model.reward_manager=batch (one call per 32 replies)
    custom_reward_function.name=compute_score         # reward_model.reward_manager=naive (one call per reply)

Environment:
    ECHOLOOP_LABELLER_URL   the labeller's base URL (required), e.g. http://reward-labeller:3002
    ECHOLOOP_LABELLER_KEY   an API key scoped to the reward-labeller, role experimenter or analyst (required), or
    ECHOLOOP_LABELLER_KEY_FILE  a file holding it (what the rl-orchestrator passes: a job's environment is shown by
                                Ray's dashboard, a file in its work dir is not)
    ECHOLOOP_LABELLER_TIMEOUT_S (default 120), ECHOLOOP_LABELLER_RETRIES (default 4)
    ECHOLOOP_REWARD_ON_FAILURE  a float given to a reply the labeller could not judge (every component failed);
                                unset, such a reply raises RewardScoreError

Row contract (what the verl-grpo template writes into each training row):
    extra_info.history   [{role: user|assistant, content}], the dialogue the reply answers, ending with the user
                         message (the `verl` export's `prompt` without system messages)
    reward_model.ground_truth   the reference reply (Echo-N1 comparative judging), "" for none
The value is the labeller's `composite` (a weighted mean of the components present; empathy and humanlike are in
[0, 1], so without a next user message the composite is in [0, 1]).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

# The labeller's limits on one request (apps/reward-labeller/src/scoring/score.schemas.ts).
MAX_BATCH_ITEMS = 32
MAX_BATCH_CHARS = 1_000_000
MAX_TEXT_CHARS = 20_000
# 5xx a retry can cure; the labeller's own JSON 502 (code bad_gateway: its judge refused the call) cannot.
RETRY_STATUSES = frozenset({500, 502, 503, 504})
# Chat-template markers that start another message, when the decoded response kept special tokens.
_TURN_END = re.compile(r"<\|im_end\|>|<\|im_start\|>|<\|eot_id\|>|<\|start_header_id\|>|<\|endoftext\|>|</s>")


class RewardScoreError(RuntimeError):
    """The labeller refused the batch (`status` > 0: its HTTP status, `code`: its error code), could not be reached
    after the retries (`status` 0), or could not judge a reply."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"reward labeller: {status} {code}: {message}")
        self.status = status
        self.code = code


def split_reply(solution_str: str) -> tuple[str, str | None]:
    """The policy's first reply as (content, reasoning): the text after `</think>` (an opening `<think>` may be
    missing when the chat template put it in the prompt), reasoning None without a think block. A reply that still
    holds think markup is sent as it is: the labeller's process gate scores it 0. Held to the cases
    libs/vocabulary/src/think-cases.json, which the gateway's stripThink reads the same way."""
    text = _TURN_END.split(solution_str, maxsplit=1)[0]
    match = re.match(r"\s*(?:<think>)?(.*?)</think>(.*)\Z", text, re.DOTALL | re.IGNORECASE)
    if match:
        return match.group(2).strip(), match.group(1).strip()
    opened = re.match(r"\s*<think>(.*)\Z", text, re.DOTALL | re.IGNORECASE)
    if opened:  # cut off mid-thought: no reply at all
        return "", opened.group(1).strip()
    return text.strip(), None


def _history(extra_info: Mapping[str, Any] | None) -> list[dict[str, str]]:
    raw = (extra_info or {}).get("history")
    if raw is None or isinstance(raw, (str, bytes, Mapping)):
        raise ValueError("extra_info.history is missing: render the data with echoloop_verl.grpo_template")
    try:
        history = [
            {"role": str(m["role"]), "content": str(m["content"])[-MAX_TEXT_CHARS:]}
            for m in raw
            if m["role"] in ("user", "assistant")
        ]
    except (TypeError, KeyError) as error:
        raise ValueError(f"extra_info.history must be a list of {{role, content}}: {error}") from None
    if not history or history[-1]["role"] != "user":
        raise ValueError("extra_info.history must end with the user message the reply answers")
    return history[-200:]


def _item(solution_str: str, ground_truth: Any, extra_info: Mapping[str, Any] | None) -> dict[str, Any]:
    reply, reasoning = split_reply(solution_str or "")
    item: dict[str, Any] = {"history": _history(extra_info), "reply": reply[:MAX_TEXT_CHARS]}
    if reasoning is not None:
        item["reasoning"] = reasoning[:50_000]
    if isinstance(ground_truth, str) and ground_truth.strip():
        item["reference"] = ground_truth[:MAX_TEXT_CHARS]
    return item


def _chars(item: dict[str, Any]) -> int:
    return (
        sum(len(m["content"]) for m in item["history"])
        + len(item["reply"])
        + len(item.get("reasoning") or "")
        + len(item.get("reference") or "")
    )


def service_key(name: str = "ECHOLOOP_LABELLER") -> str:
    """A service's API key: the file `<name>_KEY_FILE` names, else `<name>_KEY` ("" when neither is set)."""
    path = os.environ.get(f"{name}_KEY_FILE", "")
    if path:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    return os.environ.get(f"{name}_KEY", "")


def _post(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    base_url = os.environ.get("ECHOLOOP_LABELLER_URL", "").rstrip("/")
    if not base_url:
        raise RewardScoreError(0, "not_configured", "set ECHOLOOP_LABELLER_URL to the reward labeller's base URL")
    timeout_s = float(os.environ.get("ECHOLOOP_LABELLER_TIMEOUT_S", "120"))
    retries = int(os.environ.get("ECHOLOOP_LABELLER_RETRIES", "4"))
    data = json.dumps({"items": items}).encode()
    for attempt in range(retries + 1):
        request = urllib.request.Request(
            base_url + "/v1/rewards/score",
            data=data,
            method="POST",
            headers={"content-type": "application/json", "x-api-key": service_key()},
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                body = json.loads(response.read())
            scored = body.get("items") if isinstance(body, dict) else None
            if not isinstance(scored, list) or len(scored) != len(items):
                raise RewardScoreError(200, "bad_response", "the labeller answered without one item per reply")
            return scored
        except urllib.error.HTTPError as error:
            status, code, message = error.code, "http_error", str(error.reason)
            try:
                detail = json.loads(error.read()).get("error", {})
                code, message = detail.get("code", code), detail.get("message", message)
            except (ValueError, AttributeError):
                pass
            if status not in RETRY_STATUSES or code == "bad_gateway" or attempt == retries:
                raise RewardScoreError(status, str(code), str(message)) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError, http.client.HTTPException) as error:
            if attempt == retries:
                raise RewardScoreError(0, "unreachable", str(getattr(error, "reason", error))) from None
        time.sleep(min(0.5 * 2**attempt, 8.0))
    raise AssertionError("unreachable")


def _composite(scored: dict[str, Any]) -> float | None:
    composite = scored.get("composite")
    if isinstance(composite, dict) and isinstance(composite.get("value"), (int, float)):
        return float(composite["value"])
    return None


def _value(scored: dict[str, Any]) -> float:
    composite = _composite(scored)
    if composite is not None:
        return composite
    fallback = os.environ.get("ECHOLOOP_REWARD_ON_FAILURE")
    if fallback is not None and fallback != "":
        return float(fallback)
    errors = "; ".join(
        f"{c.get('component')}: {c.get('error') or c.get('status')}" for c in scored.get("components", [])
    )
    raise RewardScoreError(200, "not_judged", f"no component could be judged ({errors or 'none asked'})")


def _scored(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Labeller items → the labeller's scored items, in batches within its limits, up to 4 batches at a time."""
    batches: list[list[dict[str, Any]]] = []
    for item in items:
        last = batches[-1] if batches else None
        if last is None or len(last) >= MAX_BATCH_ITEMS or sum(map(_chars, last)) + _chars(item) > MAX_BATCH_CHARS:
            batches.append([item])
        else:
            last.append(item)
    workers = max(1, min(len(batches), int(os.environ.get("ECHOLOOP_LABELLER_CONCURRENCY", "4"))))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(_post, batches))
    return [scored for batch in results for scored in batch]


def score_items(items: list[dict[str, Any]]) -> list[float]:
    """Labeller items → composites; a reply nobody could judge gets ECHOLOOP_REWARD_ON_FAILURE, or raises."""
    return [_value(scored) for scored in _scored(items)]


def composites(items: list[dict[str, Any]]) -> list[float | None]:
    """Labeller items → composites, None for a reply nobody could judge (TRL leaves such a reward out)."""
    return [_composite(scored) for scored in _scored(items)]


def reply_item(history: Sequence[Mapping[str, Any]], reply: str) -> dict[str, Any]:
    """One labeller item: the dialogue's user and assistant turns, and the policy's reply to its last user message."""
    return _item(reply, "", {"history": list(history)})


def compute_score(
    data_source: str, solution_str: str, ground_truth: Any, extra_info: Mapping[str, Any] | None = None, **kwargs: Any
) -> float:
    """VeRL's custom reward signature (naive reward manager): the composite reward of one reply."""
    return score_items([_item(solution_str, ground_truth, extra_info)])[0]


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[Mapping[str, Any] | None] | None = None,
    **kwargs: Any,
) -> list[float]:
    """VeRL's batched signature (reward_manager=batch): one composite per reply, in order."""
    infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    if not len(solution_strs) == len(ground_truths) == len(infos):
        raise ValueError("solution_strs, ground_truths and extra_infos differ in length")
    items = [_item(s, g, e) for s, g, e in zip(solution_strs, ground_truths, infos, strict=True)]
    return score_items(items) if items else []
