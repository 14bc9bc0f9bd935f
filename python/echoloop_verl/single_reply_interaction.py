"""The VeRL interaction of rows from real chats (the `verl-grpo` template's `single_reply`)."""

from __future__ import annotations

from typing import Any
from uuid import uuid4

from .sentient_interaction import BaseInteraction


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
