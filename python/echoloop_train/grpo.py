"""GRPO with a LoRA adapter (TRL): rollouts from the policy, each scored by the reward labeller, on a GPU when there is
one, else CPU; torch is imported only when training runs."""

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .metrics import GRPO_VALIDATION_KEYS
from .policy import (
    StepCallback,
    TrainOutcome,
    TrainSettings,
    ValidationCallback,
    load_policy,
    on_cuda,
    train_selecting,
    trainer_arguments,
)
from .rows import Message, Prompt
from .selection import RewardObjective, StepSelector, TrainingPlan

# Each evaluation samples the validation replies from the same seed: the same random draws at every step (common
# random numbers), so a change in the validation reward is the policy's, not the sampler's.
EVAL_SEED = 1234

# reward(prompts, replies, profiles): one reward per reply, None where it does not apply (a chat's reply for the
# simulator, a profile's for the labeller) or nobody could judge it (left out of its group). `profiles`: the
# sentient profile each prompt is the opener of, None for a real chat's prompt.
Reward = Callable[[list[list[Message]], list[str], list[str | None]], list[float | None]]


@dataclass(frozen=True)
class GrpoSettings(TrainSettings):
    num_generations: int
    """Replies sampled per prompt (the group); `batch_size` counts prompts."""
    max_completion_length: int
    temperature: float


def grpo_arguments(
    settings: GrpoSettings, plan: TrainingPlan, output_dir: str, *, cuda: bool, cuda_bf16: bool
) -> dict[str, Any]:
    """TRL's GRPOConfig arguments. `beta` 0 (TRL's default) leaves the reference model out of the loss: the drift
    from the parent is bounded by the trust region measured at every evaluation instead, as for DPO."""
    completions = settings.batch_size * settings.num_generations
    return {
        **trainer_arguments(settings, plan, output_dir, cuda=cuda, cuda_bf16=cuda_bf16),
        # TRL counts completions, not prompts: a step is `batch_size` prompts' whole groups.
        "per_device_train_batch_size": completions,
        "per_device_eval_batch_size": completions,
        "num_generations": settings.num_generations,
        "max_completion_length": settings.max_completion_length,
        "temperature": settings.temperature,
    }


def train(
    prompts: list[Prompt],
    validation: list[Prompt],
    hf_base: Path,
    adapter_dir: Path,
    settings: GrpoSettings,
    plan: TrainingPlan,
    parent_adapter: Path | None,
    parent_id: str,
    rewards: dict[str, Reward],
    on_step: StepCallback,
    on_validation: ValidationCallback,
) -> TrainOutcome:
    """Trains with an evaluation on `validation` first (the parent's own reward, step 0) and every
    `plan.eval_every` steps; the best step's adapter is saved into adapter_dir as it is found; training stops after
    `settings.patience` evaluations without a better one, or once its drift from the parent is over
    `settings.max_kl`. With `parent_adapter`, its LoRA weights are trained further; otherwise a fresh LoRA."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    # Generation pads on the left, so every prompt's reply starts at the same position.
    model, tokenizer, lora = load_policy(
        hf_base, parent_adapter, settings.lora_r, settings.lora_alpha, settings.threads, padding_side="left"
    )

    def reward_func(name: str, reward: Reward) -> Callable[..., list[float | None]]:
        def scored(prompts: list[list[Message]], completions: list[list[Message]], **columns: Any) -> list[float | None]:
            replies = [completion[-1]["content"] if completion else "" for completion in completions]
            return reward(prompts, replies, list(columns.get("profile") or [None] * len(replies)))

        # TRL logs each reward function's mean under its name (rewards/<name>/mean).
        scored.__name__ = name
        return scored

    with tempfile.TemporaryDirectory(prefix="trl-grpo-") as scratch:
        config = GRPOConfig(**grpo_arguments(settings, plan, scratch, **on_cuda()))
        return train_selecting(
            lambda callbacks: GRPOTrainer(
                model=model,
                reward_funcs=[reward_func(name, reward) for name, reward in rewards.items()],
                args=config,
                train_dataset=Dataset.from_list(prompts),
                eval_dataset=Dataset.from_list(validation),
                processing_class=tokenizer,
                peft_config=lora,
                callbacks=callbacks,
            ),
            tokenizer,
            StepSelector(patience=settings.patience, max_kl=settings.max_kl, objective=RewardObjective()),
            adapter_dir=adapter_dir,
            parent_id=parent_id,
            validation_keys=GRPO_VALIDATION_KEYS,
            on_step=on_step,
            on_validation=on_validation,
            baseline=True,
            eval_seed=EVAL_SEED,
        )
