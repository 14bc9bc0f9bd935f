"""DPO with a LoRA adapter (TRL), on a GPU when there is one, else CPU; torch is imported only when training runs."""

import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .kl import ReferenceDrift, load_reference_prompts
from .metrics import validation_record
from .rows import Pair
from .selection import StepSelector, TrainingPlan

LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj"]
# Tokens the parent samples per reference prompt for the drift measure.
KL_TOKENS = 24
# Fixed, not the job's seed: every generation is measured on the same parent samples.
KL_SEED = 0

# on_step(step, TRL's log entry, seconds since training began)
StepCallback = Callable[[int, dict[str, Any], float], None]
# on_validation(validation_record(...))
ValidationCallback = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class DpoSettings:
    max_steps: int
    epochs: float
    patience: int
    max_kl: float
    eval_every: int | None
    batch_size: int
    learning_rate: float
    beta: float
    lora_r: int
    lora_alpha: int
    max_length: int
    seed: int
    threads: int

    def as_manifest(self) -> dict[str, Any]:
        return {_camel(key): value for key, value in asdict(self).items()}


@dataclass(frozen=True)
class TrainOutcome:
    seconds: float
    """Training seconds, model loading excluded."""
    selection: dict[str, Any]
    """The chosen step and why (StepSelector.summary); `generalised` False means no adapter was kept."""
    lora_r: int
    """The adapter's rank: the parent's when continuing one."""


def dpo_arguments(settings: DpoSettings, plan: TrainingPlan, output_dir: str, *, cuda: bool, cuda_bf16: bool) -> dict[str, Any]:
    """TRL's DPOConfig arguments. The same job trains on a GPU where its worker has one (production), on CPU here."""
    return {
        "output_dir": output_dir,
        "max_steps": plan.steps,
        "per_device_train_batch_size": settings.batch_size,
        # Evaluation has no gradients to hold: larger batches cost little memory and run faster.
        "per_device_eval_batch_size": max(settings.batch_size, 8),
        "eval_strategy": "steps",
        "eval_steps": plan.eval_every,
        "learning_rate": settings.learning_rate,
        "beta": settings.beta,
        # The reference's log-probabilities once per pair before training, not a reference forward every step: a
        # saving once training sees every pair (a shorter run would compute some it never uses).
        "precompute_ref_log_probs": plan.steps >= plan.steps_per_epoch,
        "max_length": settings.max_length,
        "seed": settings.seed,
        "logging_steps": 1,
        # The best step's adapter is saved by SelectBest (a few MB), not the trainer's full checkpoints.
        "save_strategy": "no",
        "report_to": "none",
        "disable_tqdm": True,
        # TRL turns it on by default; on CPU it only costs time.
        "activation_checkpointing": False,
        "use_cpu": not cuda,
        # TRL defaults to bf16 mixed precision. On a CPU without native bf16 (no AVX512-BF16/AMX) every matmul then
        # takes a scalar fallback, about 10x slower than fp32 (49 s against 4.6 s a step here); CPU runs stay fp32.
        "bf16": cuda and cuda_bf16,
    }


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


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
    import torch
    from datasets import Dataset
    from peft import LoraConfig, PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer, PrinterCallback, TrainerCallback
    from trl import DPOConfig, DPOTrainer

    torch.set_num_threads(settings.threads)
    tokenizer = AutoTokenizer.from_pretrained(hf_base)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(hf_base, dtype=torch.float32)
    lora = None
    if parent_adapter is not None:
        model = PeftModel.from_pretrained(model, parent_adapter, is_trainable=True)
    else:
        lora = LoraConfig(
            r=settings.lora_r,
            lora_alpha=settings.lora_alpha,
            lora_dropout=0.0,
            target_modules=LORA_TARGETS,
            task_type="CAUSAL_LM",
        )
    started = [time.monotonic()]
    selector = StepSelector(patience=settings.patience, max_kl=settings.max_kl)
    drift: list[ReferenceDrift] = []

    class SelectBest(TrainerCallback):
        def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            started[0] = time.monotonic()

        def on_log(self, args: Any, state: Any, control: Any, logs: dict | None = None, **kwargs: Any) -> None:
            on_step(state.global_step, logs or {}, time.monotonic() - started[0])

        def on_evaluate(self, args: Any, state: Any, control: Any, metrics: dict | None = None, **kwargs: Any) -> None:
            peft_model = kwargs["model"]
            kl = drift[0].kl(peft_model) if drift else None
            record = validation_record(state.global_step, metrics or {}, kl, time.monotonic() - started[0])
            if selector.observe(record):
                peft_model.save_pretrained(adapter_dir, selected_adapters=["default"])
            on_validation(record)
            if selector.should_stop:
                control.should_training_stop = True

    with tempfile.TemporaryDirectory(prefix="trl-dpo-") as scratch:
        config = DPOConfig(
            **dpo_arguments(
                settings,
                plan,
                scratch,
                cuda=torch.cuda.is_available(),
                cuda_bf16=torch.cuda.is_available() and torch.cuda.is_bf16_supported(),
            )
        )
        trainer = DPOTrainer(
            model=model,
            args=config,
            train_dataset=Dataset.from_list(pairs),
            eval_dataset=Dataset.from_list(validation),
            processing_class=tokenizer,
            peft_config=lora,
            callbacks=[SelectBest()],
        )
        # Its log dicts would mix with the ECHOLOOP_PROGRESS lines on stdout; SelectBest reports the same.
        trainer.remove_callback(PrinterCallback)
        drift.append(
            ReferenceDrift.sample(trainer.model, tokenizer, load_reference_prompts(), KL_TOKENS, KL_SEED, parent_id)
        )
        trainer.train()
        evaluated = selector.history[-1]["step"] if selector.history else None
        if not selector.should_stop and evaluated != trainer.state.global_step:
            trainer.evaluate()
        seconds = time.monotonic() - started[0]
        rank = int(trainer.model.peft_config["default"].r)
    return TrainOutcome(seconds=seconds, selection=selector.summary(), lora_r=rank)
