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
# The policy's own replies to chats, as it stands at the step (greedy, batched): what a reward that plays a
# conversation on after the reply being scored answers the later turns with.
Responder = Callable[[list[list[Message]]], list[str]]
# A reward, given the responder (a one-turn reward ignores it).
RewardSource = Callable[[Responder], Reward]


@dataclass(frozen=True)
class GrpoSettings(TrainSettings):
    num_generations: int
    """Replies sampled per prompt (the group); `batch_size` counts prompts."""
    max_completion_length: int
    temperature: float
    sentient_turns: int
    """Replies in each simulated conversation, the scored one first (the policy answers the others)."""


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


class PolicyReplies:
    """The Responder over the model being trained: set `model` once the trainer has wrapped it. Replies are greedy
    (the continuation is the policy's best answer, not a second draw) and leave the model in the mode it was in."""

    def __init__(self, tokenizer: Any, max_new_tokens: int) -> None:
        self.tokenizer = tokenizer
        self.max_new_tokens = max_new_tokens
        self.model: Any = None

    def __call__(self, chats: list[list[Message]]) -> list[str]:
        import torch

        if not chats:
            return []
        texts = [self.tokenizer.apply_chat_template(c, add_generation_prompt=True, tokenize=False) for c in chats]
        batch = self.tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
        batch = {key: value.to(self.model.device) for key, value in batch.items()}
        training = self.model.training
        self.model.eval()
        try:
            with torch.no_grad():
                out = self.model.generate(
                    **batch,
                    max_new_tokens=self.max_new_tokens,
                    do_sample=False,
                    pad_token_id=self.tokenizer.pad_token_id,
                )
        finally:
            self.model.train(training)
        start = batch["input_ids"].shape[1]
        return [self.tokenizer.decode(row[start:], skip_special_tokens=True).strip() for row in out]


def train(
    prompts: list[Prompt],
    validation: list[Prompt],
    hf_base: Path,
    adapter_dir: Path,
    settings: GrpoSettings,
    plan: TrainingPlan,
    parent_adapter: Path | None,
    parent_id: str,
    rewards: dict[str, RewardSource],
    on_step: StepCallback,
    on_validation: ValidationCallback,
) -> TrainOutcome:
    """Trains with an evaluation on `validation` first (the parent's own reward, step 0) and every
    `plan.eval_every` steps; the best step's adapter is saved into adapter_dir as it is found; training stops after
    `settings.patience` evaluations without a better one, or once its drift from the parent is over
    `settings.max_kl`. With `parent_adapter`, its LoRA weights are trained further; otherwise a fresh LoRA. Each
    reward source is given the policy's own replies (PolicyReplies) for the turns after the one being scored."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    # Generation pads on the left, so every prompt's reply starts at the same position.
    model, tokenizer, lora = load_policy(
        hf_base, parent_adapter, settings.lora_r, settings.lora_alpha, settings.threads, padding_side="left"
    )

    def reward_func(name: str, reward: Reward) -> Callable[..., list[float | None]]:
        def scored(
            prompts: list[list[Message]], completions: list[list[Message]], **columns: Any
        ) -> list[float | None]:
            replies = [completion[-1]["content"] if completion else "" for completion in completions]
            return reward(prompts, replies, list(columns.get("profile") or [None] * len(replies)))

        # TRL logs each reward function's mean under its name (rewards/<name>/mean).
        scored.__name__ = name
        return scored

    policy = PolicyReplies(tokenizer, settings.max_completion_length)

    def trainer(callbacks: list[Any]) -> Any:
        built = GRPOTrainer(
            model=model,
            reward_funcs=[reward_func(name, source(policy)) for name, source in rewards.items()],
            args=config,
            train_dataset=Dataset.from_list(prompts),
            eval_dataset=Dataset.from_list(validation),
            processing_class=tokenizer,
            peft_config=lora,
            callbacks=callbacks,
        )
        # The model TRL trains (with its LoRA applied), the one whose replies continue the conversations.
        policy.model = built.model
        return built

    with tempfile.TemporaryDirectory(prefix="trl-grpo-") as scratch:
        config = GRPOConfig(**grpo_arguments(settings, plan, scratch, **on_cuda()))
        return train_selecting(
            trainer,
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
