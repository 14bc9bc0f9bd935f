"""DPO with a LoRA adapter (TRL), on a GPU when there is one, else CPU; torch is imported only when training runs."""

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .metrics import DPO_VALIDATION_KEYS
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
from .rows import Pair
from .selection import StepSelector, TrainingPlan


@dataclass(frozen=True)
class DpoSettings(TrainSettings):
    max_length: int


def dpo_arguments(
    settings: DpoSettings, plan: TrainingPlan, output_dir: str, *, cuda: bool, cuda_bf16: bool
) -> dict[str, Any]:
    """TRL's DPOConfig arguments."""
    return {
        **trainer_arguments(settings, plan, output_dir, cuda=cuda, cuda_bf16=cuda_bf16),
        "per_device_train_batch_size": settings.batch_size,
        # Evaluation has no gradients to hold: larger batches cost little memory and run faster.
        "per_device_eval_batch_size": max(settings.batch_size, 8),
        # The reference's log-probabilities once per pair before training, not a reference forward every step: a
        # saving once training sees every pair (a shorter run would compute some it never uses).
        "precompute_ref_log_probs": plan.steps >= plan.steps_per_epoch,
        "max_length": settings.max_length,
    }


def train(
    pairs: list[Pair],
    validation: list[Pair],
    hf_base: Path,
    adapter_dir: Path,
    settings: DpoSettings,
    plan: TrainingPlan,
    parent_adapter: Path | None,
    parent_id: str,
    on_step: StepCallback,
    on_validation: ValidationCallback,
) -> TrainOutcome:
    """Trains with an evaluation on `validation` every `plan.eval_every` steps; the best step's adapter is saved
    into adapter_dir as it is found; training stops after `settings.patience` evaluations without a better one, or
    once its drift from the parent is over `settings.max_kl`.

    With `parent_adapter`, its LoRA weights are trained further and DPO's reference is the parent itself (TRL keeps
    a frozen copy of the loaded adapter as "ref"); otherwise a fresh LoRA is trained against the base. `parent_id`
    names the parent's weights (base and adapter hashes) for the drift measure's cache."""
    from datasets import Dataset
    from trl import DPOConfig, DPOTrainer

    model, tokenizer, lora = load_policy(
        hf_base, parent_adapter, settings.lora_r, settings.lora_alpha, settings.threads
    )
    with tempfile.TemporaryDirectory(prefix="trl-dpo-") as scratch:
        config = DPOConfig(**dpo_arguments(settings, plan, scratch, **on_cuda()))
        return train_selecting(
            lambda callbacks: DPOTrainer(
                model=model,
                args=config,
                train_dataset=Dataset.from_list(pairs),
                eval_dataset=Dataset.from_list(validation),
                processing_class=tokenizer,
                peft_config=lora,
                callbacks=callbacks,
            ),
            tokenizer,
            StepSelector(patience=settings.patience, max_kl=settings.max_kl),
            adapter_dir=adapter_dir,
            parent_id=parent_id,
            validation_keys=DPO_VALIDATION_KEYS,
            on_step=on_step,
            on_validation=on_validation,
        )
