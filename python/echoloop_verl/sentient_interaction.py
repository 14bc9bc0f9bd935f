"""The sentient user (RLVER/SAGE style) as a VeRL interaction.

Every user turn comes from the eval-runner's simulator over HTTP, so RL rollouts meet the very same simulated users
as the benchmark (the training pool only: the service refuses benchmark profiles). Enable it in VeRL with
`actor_rollout_ref.rollout.multi_turn.interaction_config_path` pointing at a yaml like `interaction_config.yaml`,
and put `{"name": "sentient_user", "profile_id": ...}` in each row's `extra_info.interaction_kwargs`.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any
from uuid import uuid4

from .simulator_client import SimulatorClient, SimulatorError

try:
    from verl.interactions.base import BaseInteraction
except ImportError:  # VeRL lives on the training cluster; the bridge and its tests run without it.

    class BaseInteraction:  # type: ignore[no-redef]
        def __init__(self, config: dict[str, Any]) -> None:
            self.config = config
            self.name: str = config.get("name", "interaction_agent")


class SentientUserInteraction(BaseInteraction):
    """start_interaction opens a session; each generate_response sends the policy's latest reply and returns the
    user's next message with the turn score emo/100; the rollout stops on goodbye, emo >= 100, emo < 10 or the turn
    limit. calculate_score gives RLVER's sparse reward max(emo/100, 0).

    Config: base_url (or ECHOLOOP_SIMULATOR_URL), api_key_env (default ECHOLOOP_SIMULATOR_KEY), timeout_s, retries.
    """

    def __init__(self, config: dict[str, Any]) -> None:
        super().__init__(config)
        base_url = config.get("base_url") or os.environ.get("ECHOLOOP_SIMULATOR_URL")
        if not base_url:
            raise ValueError("sentient_user needs config.base_url or ECHOLOOP_SIMULATOR_URL")
        api_key = os.environ.get(config.get("api_key_env", "ECHOLOOP_SIMULATOR_KEY"), "")
        self._client = SimulatorClient(
            base_url, api_key, float(config.get("timeout_s", 600)), int(config.get("retries", 4))
        )
        self._instances: dict[str, dict[str, Any]] = {}

    async def start_interaction(
        self,
        instance_id: str | None = None,
        profile_id: str | None = None,
        init_emotion: int | None = None,
        max_turns: int | None = None,
        **kwargs: Any,
    ) -> str:
        if not profile_id:
            raise ValueError("interaction_kwargs needs a profile_id")
        instance_id = instance_id or str(uuid4())
        session = await asyncio.to_thread(self._client.open, profile_id, init_emotion, max_turns)
        self._instances[instance_id] = {"session": session, "turn_scores": []}
        return instance_id

    def opener(self, instance_id: str) -> str:
        """The user's first message: the prompt row's last user message should be exactly this."""
        return self._instances[instance_id]["session"]["userMessage"]

    async def generate_response(
        self, instance_id: str, messages: list[dict[str, Any]], **kwargs: Any
    ) -> tuple[bool, str, float, dict[str, Any]]:
        instance = self._instances[instance_id]
        reply = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "assistant"), "")
        if instance["session"]["done"]:
            return True, "", instance["session"]["turnScore"], {"end_reason": instance["session"]["endReason"]}
        if not reply.strip():
            # An empty reply cannot be answered; ending here gives the rollout its score so far.
            return True, "", instance["session"]["turnScore"], {"end_reason": "empty_reply"}
        turn = instance["session"]["turns"] + 1
        try:
            session = await asyncio.to_thread(self._client.reply, instance["session"]["id"], reply, turn)
        except SimulatorError as error:
            if error.code not in ("session_ended", "concurrent_reply", "turn_mismatch"):
                raise
            # Another request (an earlier try of this one) changed the session: take it as it now stands.
            session = await asyncio.to_thread(self._client.get, instance["session"]["id"])
            if session["turns"] < turn and not session["done"]:
                raise
        instance["session"] = session
        instance["turn_scores"].append(session["turnScore"])
        meta = {
            # The simulator could not read its own model's output: the episode stopped at its last good state.
            "simulator_error": session["endReason"] == "error",
            "score": session["score"],
            "delta": session["delta"],
            "bucket": session["bucket"],
            "end_reason": session["endReason"],
            "reward": session["reward"],
        }
        return session["done"], session["userMessage"], session["turnScore"], meta

    async def calculate_score(self, instance_id: str, **kwargs: Any) -> float:
        return float(self._instances[instance_id]["session"]["reward"])

    async def finalize_interaction(self, instance_id: str, **kwargs: Any) -> None:
        self._instances.pop(instance_id, None)
