"""Job template `trl-grpo`: online RL (GRPO, LoRA) on a `verl` snapshot's prompts, rewarded by the reward labeller.

    python -m echoloop_train.trl_grpo --snapshot DIR --output DIR --dataset-id ID [--parent-adapter DIR] [...]

The policy answers each training prompt --num-generations times and GRPO moves it toward the replies that beat their
group's mean. A prompt from a real chat is rewarded by the labeller's `POST /v1/rewards/score` (its composite: the
empathy and humanlike judges); with --profiles, each training-pool sentient profile adds its opener as a prompt,
rewarded as in RLVER by the simulated user's emotion where the conversation ends: the policy goes on answering the
user for up to --sentient-turns replies (the eval-runner's simulator sessions, max(emo/100, 0); benchmark profiles
are never trained on). Validation prompts (other users than train's) are answered from a fixed seed before
training (the parent's reward) and every --eval-every steps; the step kept is the best within the KL budget, and a
run with no step above the parent ends with a manifest that says so and no adapter.

Environment: ECHOLOOP_LABELLER_URL and ECHOLOOP_LABELLER_KEY_FILE (or ECHOLOOP_LABELLER_KEY), see
echoloop_verl/reward_fn.py; with --profiles, ECHOLOOP_SIMULATOR_URL and ECHOLOOP_SIMULATOR_KEY_FILE (the same key
when it is scoped to the eval-runner too). Exit codes: 0 done (OUTPUT/manifest.json written last), 2 invalid input
(before torch is loaded), 1 any other failure.
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
from .grpo import GrpoSettings, Responder, Reward, RewardSource, train
from .metrics import GRPO_LOG_KEYS
from .policy import settings_of
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
    parser.add_argument(
        "--sentient-turns",
        type=int,
        default=3,
        help="replies in a simulated conversation, the scored one first (the policy answers the rest)",
    )
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
    if not 1 <= settings.sentient_turns <= 45:
        raise InvalidInput("--sentient-turns must be from 1 to 45 (the simulator's own cap)")
    return settings


def labeller_reward(prompts: list[list[Message]], replies: list[str], profiles: list[str | None]) -> list[float | None]:
    """The labeller's composite of each reply to a real chat (the companion's instructions are not sent)."""
    chats = [i for i, profile in enumerate(profiles) if profile is None]
    items = [reply_item([m for m in prompts[i] if m["role"] != "system"], replies[i]) for i in chats]
    scores: list[float | None] = [None] * len(replies)
    for i, score in zip(chats, composites(items) if items else [], strict=True):
        scores[i] = score
    return scores


def sentient_reward(simulator: SimulatorClient, turns: int) -> RewardSource:
    """RLVER's reward of a reply to a profile's opener: the simulated user's emotion where the conversation ends
    (max(emo/100, 0)), each reply in a session of its own, so every reply of a group meets the same user in the same
    state. After the scored reply the policy answers the user's next messages itself (greedy), up to `turns` replies
    in all, until the user leaves or its emotion reaches either end: a reply is worth the conversation it leads to.
    Sessions move in lockstep, so each later turn is one batched generation. An empty reply ends its conversation
    with 0; a session the simulator could not go on with (`error`) is left out of its group (None)."""

    def bind(respond: Responder) -> Reward:
        def sentient(
            prompts: list[list[Message]], replies: list[str], profiles: list[str | None]
        ) -> list[float | None]:
            scores: list[float | None] = [None] * len(replies)
            sessions: dict[int, dict] = {}
            # Each conversation so far, ending with the simulated user's latest message.
            chats: dict[int, list[Message]] = {}
            answers = {i: replies[i] for i, profile in enumerate(profiles) if profile is not None}

            def play(i: int) -> dict:
                session = sessions.get(i) or simulator.open(str(profiles[i]), max_turns=turns)
                return simulator.reply(session["id"], answers[i], session["turns"] + 1)

            with ThreadPoolExecutor(max_workers=4) as pool:
                while answers:
                    for i in [i for i, answer in answers.items() if not answer.strip()]:
                        scores[i] = 0.0
                        del answers[i]
                    ids = list(answers)
                    for i, session in zip(ids, pool.map(play, ids), strict=True):
                        sessions[i] = session
                        said = [
                            {"role": "assistant", "content": answers[i]},
                            {"role": "user", "content": session["userMessage"]},
                        ]
                        chats[i] = [*chats.get(i, prompts[i]), *said]
                        if session["done"]:
                            scores[i] = None if session["endReason"] == "error" else float(session["reward"])
                    going = [i for i in ids if not sessions[i]["done"]]
                    answers = dict(zip(going, respond([chats[i] for i in going]), strict=True)) if going else {}
            return scores

        return sentient

    return bind


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
    # Every row names its profile (None for a chat): TRL passes the column to the rewards.
    chats: list[Prompt] = [{**p, "profile": None} for p in load_prompts(args.snapshot / "train.jsonl")]
    validation: list[Prompt] = [{**p, "profile": None} for p in load_prompts(args.snapshot / "validation.jsonl")]
    rewards: dict[str, RewardSource] = {"labeller": lambda _: labeller_reward}
    profiled: list[Prompt] = []
    if args.profiles is not None:
        url = os.environ.get("ECHOLOOP_SIMULATOR_URL")
        if not url:
            raise InvalidInput(
                "ECHOLOOP_SIMULATOR_URL is not set: --profiles are played by the eval-runner's simulator"
            )
        profiled = openers(args.profiles)
        client = SimulatorClient(url, _checked_key("ECHOLOOP_SIMULATOR"))
        rewards["sentient"] = sentient_reward(client, settings.sentient_turns)
    prompts = chats + profiled
    trainer = partial(train, prompts, validation, settings=settings, parent_adapter=parent, rewards=rewards)
    counts = {"trainPrompts": len(chats), "profilePrompts": len(profiled), "validationPrompts": len(validation)}
    return lambda: job.run(TEMPLATE, args, settings, (len(prompts), len(validation)), counts, parent, trainer)


def main(argv: list[str] | None = None) -> int:
    return job.main(TEMPLATE.name, lambda: prepare(argv))


if __name__ == "__main__":
    sys.exit(main())
