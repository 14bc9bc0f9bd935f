"""Job template `trl-grpo`: online RL (GRPO, LoRA) on a `verl` snapshot's prompts, rewarded by the reward labeller.

    python -m echoloop_train.trl_grpo --snapshot DIR --output DIR --dataset-id ID [--parent-adapter DIR] [...]

The policy answers each training prompt --num-generations times and GRPO moves it toward the replies that beat their
group's mean. A prompt from a real chat is rewarded by the labeller's `POST /v1/rewards/score` (its composite: the
empathy and humanlike judges); with --profiles, each training-pool sentient profile adds its opener as a prompt,
rewarded as in RLVER by the simulated user's emotion after the reply (the eval-runner's simulator sessions, emo/100;
benchmark profiles are never trained on). Validation prompts (other users than train's) are answered from a fixed seed before
training (the parent's reward) and every --eval-every steps; the step kept is the best within the KL budget, and a
run with no step above the parent ends with a manifest that says so and no adapter.

Environment: ECHOLOOP_LABELLER_URL and ECHOLOOP_LABELLER_KEY_FILE (or ECHOLOOP_LABELLER_KEY), see
echoloop_verl/reward_fn.py; with --profiles, ECHOLOOP_SIMULATOR_URL and ECHOLOOP_SIMULATOR_KEY_FILE (the same key
when it is scoped to the eval-runner too). Exit codes: 0 done (OUTPUT/manifest.json written last), 2 invalid input (before torch
is loaded), 1 any other failure.
"""

import argparse
import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

from echoloop_verl.grpo_template import TemplateError, read_training_profiles
from echoloop_verl.reward_fn import composites, reply_item, service_key
from echoloop_verl.simulator_client import SimulatorClient

from . import job
from .policy import settings_of
from .grpo import GrpoSettings, train
from .metrics import GRPO_LOG_KEYS
from .rows import InvalidInput, Message, Prompt, load_prompts

TEMPLATE = job.Template(name="trl-grpo", log_keys=GRPO_LOG_KEYS, headline=("reward", "rewardStd"))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m echoloop_train.trl_grpo", description=__doc__.splitlines()[0])
    # beta 0 (TRL's default): no KL term in the loss; the trust region bounds the drift instead.
    job.add_common_arguments(parser, epochs=1.0, learning_rate=1e-4, beta=0.0)
    parser.add_argument("--num-generations", type=int, default=4, help="replies sampled per prompt (the group)")
    parser.add_argument("--max-completion-length", type=int, default=48, help="tokens per reply")
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--profiles", type=Path, help="sentient profiles jsonl: its training pool adds openers")
    return parser.parse_args(argv)


def settings_from(args: argparse.Namespace) -> GrpoSettings:
    settings = settings_of(GrpoSettings, args)
    job.check_common(settings)
    if settings.num_generations < 2:
        raise InvalidInput("--num-generations must be at least 2 (GRPO compares the replies of a group)")
    if settings.max_completion_length < 1:
        raise InvalidInput("--max-completion-length must be at least 1")
    if settings.temperature <= 0 or settings.beta < 0:
        raise InvalidInput("--temperature must be positive and --beta not negative")
    return settings


def labeller_reward(prompts: list[list[Message]], replies: list[str], profiles: list[str | None]) -> list[float | None]:
    """The labeller's composite of each reply to a real chat (the companion's instructions are not sent)."""
    chats = [i for i, profile in enumerate(profiles) if profile is None]
    items = [reply_item([m for m in prompts[i] if m["role"] != "system"], replies[i]) for i in chats]
    scores: list[float | None] = [None] * len(replies)
    for i, score in zip(chats, composites(items) if items else []):
        scores[i] = score
    return scores


def sentient_reward(simulator: SimulatorClient) -> Callable[..., list[float | None]]:
    """RLVER's reward of a reply to a profile's opener: the simulated user's emotion after it (emo/100), each reply
    in a session of its own, so every reply of a group meets the same user in the same state."""

    def emotion_after(profile: str, reply: str) -> float | None:
        if not reply.strip():
            return 0.0
        session = simulator.open(profile)
        answered = simulator.reply(session["id"], reply, 1)
        return None if answered.get("endReason") == "error" else float(answered["turnScore"])

    def sentient(prompts: list[list[Message]], replies: list[str], profiles: list[str | None]) -> list[float | None]:
        asked = [(i, profile) for i, profile in enumerate(profiles) if profile is not None]
        scores: list[float | None] = [None] * len(replies)
        with ThreadPoolExecutor(max_workers=4) as pool:
            for (i, _), score in zip(asked, pool.map(lambda a: emotion_after(a[1], replies[a[0]]), asked)):
                scores[i] = score
        return scores

    return sentient


def _checked_key(name: str) -> str:
    path = os.environ.get(f"{name}_KEY_FILE", "")
    if path and not Path(path).is_file():
        raise InvalidInput(f"{name}_KEY_FILE {path} does not exist")
    return service_key(name)


def openers(path: Path) -> list[Prompt]:
    """One prompt per training-pool profile: its opener, answered by the policy and played to its simulated user."""
    try:
        profiles = read_training_profiles(path)
    except TemplateError as e:
        raise InvalidInput(str(e)) from None
    return [
        {"prompt": [{"role": "user", "content": str(p["firstMessage"])}], "profile": str(p["id"])}
        for p in sorted(profiles, key=lambda p: str(p["id"]))
    ]


def prepare(argv: list[str] | None) -> Callable[[], Path]:
    """Everything the run reads, checked before the training stack loads."""
    args = parse_args(argv)
    settings = settings_from(args)
    parent = job.checked_inputs(args)
    if not os.environ.get("ECHOLOOP_LABELLER_URL"):
        raise InvalidInput("ECHOLOOP_LABELLER_URL is not set: the rewards come from the reward labeller")
    _checked_key("ECHOLOOP_LABELLER")
    chats = [{**p, "profile": None} for p in load_prompts(args.snapshot / "train.jsonl")]
    validation = [{**p, "profile": None} for p in load_prompts(args.snapshot / "validation.jsonl")]
    rewards = {"labeller": labeller_reward}
    profiled: list[Prompt] = []
    if args.profiles is not None:
        url = os.environ.get("ECHOLOOP_SIMULATOR_URL")
        if not url:
            raise InvalidInput("ECHOLOOP_SIMULATOR_URL is not set: --profiles are played by the eval-runner's simulator")
        profiled = openers(args.profiles)
        rewards["sentient"] = sentient_reward(SimulatorClient(url, _checked_key("ECHOLOOP_SIMULATOR")))
    prompts = chats + profiled
    trainer = partial(train, prompts, validation, settings=settings, parent_adapter=parent, rewards=rewards)
    counts = {"trainPrompts": len(chats), "profilePrompts": len(profiled), "validationPrompts": len(validation)}
    return lambda: job.run(TEMPLATE, args, settings, (len(prompts), len(validation)), counts, parent, trainer)


def main(argv: list[str] | None = None) -> int:
    return job.main(TEMPLATE.name, lambda: prepare(argv))


if __name__ == "__main__":
    sys.exit(main())
