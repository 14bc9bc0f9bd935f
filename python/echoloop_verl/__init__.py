"""Echoloop's RL bridges: the sentient user as a VeRL interaction, served by the eval-runner over HTTP."""

from .sentient_interaction import SentientUserInteraction
from .simulator_client import SimulatorClient, SimulatorError

__all__ = ["SentientUserInteraction", "SimulatorClient", "SimulatorError"]
