"""Job template `trl-grpo`: online RL (GRPO, LoRA) on a `verl` snapshot's prompts, rewarded by the reward labeller.

    python -m echoloop_train.trl_grpo --snapshot DIR --output DIR --dataset-id ID [--parent-adapter DIR] [...]

The policy answers each training prompt --num-generations times; the labeller's `POST /v1/rewards/score` scores
every reply (its composite: the empathy and humanlike judges), and GRPO moves the policy toward the replies that
beat their group's mean. Validation prompts (other users than train's) are answered from a fixed seed before
training (the parent's reward) and every --eval-every steps; the step kept is the best within the KL budget, and a
run with no step above the parent ends with a manifest that says so and no adapter.

Environment: ECHOLOOP_LABELLER_URL and ECHOLOOP_LABELLER_KEY_FILE (or ECHOLOOP_LABELLER_KEY), see
echoloop_verl/reward_fn.py. Exit codes: 0 done (OUTPUT/manifest.json written last), 2 invalid input (before torch
is loaded), 1 any other failure.
"""

import argparse
import os
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

from echoloop_verl.reward_fn import composites, reply_item

from . import job
from .policy import settings_of
from .grpo import GrpoSettings, train
from .metrics import GRPO_LOG_KEYS
from .rows import InvalidInput, Message, load_prompts

TEMPLATE = job.Template(name="trl-grpo", log_keys=GRPO_LOG_KEYS, headline=("reward", "rewardStd"))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m echoloop_train.trl_grpo", description=__doc__.splitlines()[0])
    # beta 0 (TRL's default): no KL term in the loss; the trust region bounds the drift instead.
    job.add_common_arguments(parser, epochs=1.0, learning_rate=1e-4, beta=0.0)
    parser.add_argument("--num-generations", type=int, default=4, help="replies sampled per prompt (the group)")
    parser.add_argument("--max-completion-length", type=int, default=48, help="tokens per reply")
    parser.add_argument("--temperature", type=float, default=1.0)
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


def labeller_reward(prompts: list[list[Message]], replies: list[str]) -> list[float | None]:
    """The labeller's composite of each reply to its prompt (the companion's instructions are not sent)."""
    items = [
        reply_item([m for m in prompt if m["role"] != "system"], reply) for prompt, reply in zip(prompts, replies)
    ]
    return composites(items)


def prepare(argv: list[str] | None) -> Callable[[], Path]:
    """Everything the run reads, checked before the training stack loads."""
    args = parse_args(argv)
    settings = settings_from(args)
    parent = job.checked_inputs(args)
    if not os.environ.get("ECHOLOOP_LABELLER_URL"):
        raise InvalidInput("ECHOLOOP_LABELLER_URL is not set: the rewards come from the reward labeller")
    key_file = os.environ.get("ECHOLOOP_LABELLER_KEY_FILE")
    if key_file and not Path(key_file).is_file():
        raise InvalidInput(f"ECHOLOOP_LABELLER_KEY_FILE {key_file} does not exist")
    prompts = load_prompts(args.snapshot / "train.jsonl")
    validation = load_prompts(args.snapshot / "validation.jsonl")
    trainer = partial(train, prompts, validation, settings=settings, parent_adapter=parent, reward=labeller_reward)
    counts = {"trainPrompts": len(prompts), "validationPrompts": len(validation)}
    return lambda: job.run(TEMPLATE, args, settings, (len(prompts), len(validation)), counts, parent, trainer)


def main(argv: list[str] | None = None) -> int:
    return job.main(TEMPLATE.name, lambda: prepare(argv))


if __name__ == "__main__":
    sys.exit(main())
