"""Echoloop's RL bridges: the sentient user as a VeRL interaction, served by the eval-runner over HTTP, and the
reward labeller as VeRL's custom reward function (reward_fn.py). The `verl-grpo` job template is
`python -m echoloop_verl.grpo_template` (not imported here, so that running it as a module stays clean)."""

from .reward_fn import RewardScoreError, compute_score, compute_score_batch
from .sentient_interaction import SentientUserInteraction
from .simulator_client import SimulatorClient, SimulatorError

__all__ = [
    "RewardScoreError",
    "SentientUserInteraction",
    "SimulatorClient",
    "SimulatorError",
    "compute_score",
    "compute_score_batch",
]
