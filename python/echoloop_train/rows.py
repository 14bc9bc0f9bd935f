"""A snapshot's rows, validated and reduced to TRL's conversational formats: preference pairs (DPO) and prompts
(GRPO)."""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, NotRequired, TypedDict, TypeVar

Message = dict[str, str]
Pair = dict[str, list[Message]]


class Prompt(TypedDict):
    prompt: list[Message]
    profile: NotRequired[str | None]
    """GRPO: the sentient profile whose opener this is; None (or absent) for a real chat's prompt."""


Row = TypeVar("Row")

PROMPT_ROLES = ("system", "user", "assistant")


class InvalidInput(ValueError):
    """The snapshot cannot be trained on; the message is one line for the job's stderr."""


def _load(path: Path, parse: Callable[[Any], Row], what: str) -> list[Row]:
    if not path.is_file():
        raise InvalidInput(f"{path} does not exist")
    rows: list[Row] = []
    with path.open(encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise InvalidInput(f"{path} line {number}: not valid JSON ({e.msg})") from None
            try:
                rows.append(parse(row))
            except InvalidInput as e:
                raise InvalidInput(f"{path} line {number}: {e}") from None
    if not rows:
        raise InvalidInput(f"{path} holds no {what}")
    return rows


def load_pairs(path: Path) -> list[Pair]:
    """The preference pairs of one of a snapshot's files (train.jsonl, validation.jsonl)."""
    return _load(path, to_pair, "preference pairs")


def load_prompts(path: Path) -> list[Prompt]:
    """The prompts of one of a `verl` snapshot's files: each a chat ending with the user message to answer."""
    return _load(path, to_prompt, "prompts")


def to_prompt(row: Any) -> Prompt:
    """Keeps the prompt (role and content only); the reference reply and other keys of the export are dropped."""
    if not isinstance(row, dict):
        raise InvalidInput("a row must be a JSON object")
    prompt = _messages(row, "prompt", PROMPT_ROLES)
    if prompt[-1]["role"] != "user":
        raise InvalidInput("prompt must end with the user message to answer")
    return {"prompt": prompt}


def to_pair(row: Any) -> Pair:
    """Keeps prompt/chosen/rejected (role and content only); other keys of the export are dropped."""
    if not isinstance(row, dict):
        raise InvalidInput("a row must be a JSON object")
    prompt = _messages(row, "prompt", PROMPT_ROLES)
    if not any(m["role"] == "user" for m in prompt):
        raise InvalidInput("prompt has no user message")
    return {
        "prompt": prompt,
        "chosen": _messages(row, "chosen", ("assistant",)),
        "rejected": _messages(row, "rejected", ("assistant",)),
    }


def _messages(row: dict[str, Any], key: str, roles: tuple[str, ...]) -> list[Message]:
    value = row.get(key)
    if not isinstance(value, list) or not value:
        raise InvalidInput(f"{key} must be a non-empty list of messages")
    messages: list[Message] = []
    for i, message in enumerate(value):
        role = message.get("role") if isinstance(message, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if role not in roles:
            raise InvalidInput(f"{key}[{i}].role must be one of {', '.join(roles)}")
        if not isinstance(content, str) or not content.strip():
            raise InvalidInput(f"{key}[{i}].content must be a non-empty string")
        messages.append({"role": role, "content": content})
    return messages
