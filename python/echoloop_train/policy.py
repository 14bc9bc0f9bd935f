"""What the trl trainers share around TRL: the policy (the base with a fresh LoRA, or the parent's adapter trained
further) and the run that keeps the best validation step within the trust region. torch is imported only here,
when training runs."""

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from .kl import ReferenceDrift, load_reference_prompts
from .metrics import validation_record
from .selection import StepSelector

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
class TrainOutcome:
    seconds: float
    """Training seconds, model loading excluded."""
    selection: dict[str, Any]
    """The chosen step and why (StepSelector.summary); `generalised` False means no adapter was kept."""
    lora_r: int
    """The adapter's rank: the parent's when continuing one."""


def settings_of(cls: type, args: Any) -> Any:
    """A template's settings dataclass from its parsed flags (each field is the flag of the same name)."""
    return cls(**{f.name: getattr(args, f.name) for f in fields(cls)})


@dataclass(frozen=True)
class TrainSettings:
    """What every trl template is tuned by (each flag of the same name); a template's settings add their own."""

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
    seed: int
    threads: int

    def as_manifest(self) -> dict[str, Any]:
        """The manifest's `hyperparameters` (camelCase keys)."""

        def camel(name: str) -> str:
            head, *rest = name.split("_")
            return head + "".join(part.title() for part in rest)

        return {camel(key): value for key, value in asdict(self).items()}


def load_policy(
    hf_base: Path, parent_adapter: Path | None, lora_r: int, lora_alpha: int, threads: int, padding_side: str = "right"
) -> tuple[Any, Any, Any]:
    """(model, tokenizer, the LoRA config for TRL to apply, or None when the parent's adapter is trained further)."""
    import torch
    from peft import LoraConfig, PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.set_num_threads(threads)
    tokenizer = AutoTokenizer.from_pretrained(hf_base, padding_side=padding_side)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(hf_base, dtype=torch.float32)
    if parent_adapter is not None:
        return PeftModel.from_pretrained(model, parent_adapter, is_trainable=True), tokenizer, None
    lora = LoraConfig(
        r=lora_r, lora_alpha=lora_alpha, lora_dropout=0.0, target_modules=LORA_TARGETS, task_type="CAUSAL_LM"
    )
    return model, tokenizer, lora


def trainer_arguments(settings: Any, plan: Any, output_dir: str, *, cuda: bool, cuda_bf16: bool) -> dict[str, Any]:
    """The TRL config arguments both templates share. The same job trains on a GPU where its worker has one
    (production), on CPU here."""
    return {
        "output_dir": output_dir,
        "max_steps": plan.steps,
        "eval_strategy": "steps",
        "eval_steps": plan.eval_every,
        "learning_rate": settings.learning_rate,
        "beta": settings.beta,
        "seed": settings.seed,
        "logging_steps": 1,
        # The best step's adapter is saved by train_selecting (a few MB), not the trainer's full checkpoints.
        "save_strategy": "no",
        "report_to": "none",
        "disable_tqdm": True,
        # TRL turns it on by default; on CPU it only costs time.
        "activation_checkpointing": False,
        "use_cpu": not cuda,
        # TRL defaults to bf16 mixed precision. On a CPU without native bf16 (no AVX512-BF16/AMX) every matmul then
        # takes a scalar fallback, about 10x slower than fp32 (49 s against 4.6 s a DPO step here); CPU runs stay fp32.
        "bf16": cuda and cuda_bf16,
    }


def on_cuda() -> dict[str, bool]:
    """`cuda` and `cuda_bf16` for the templates' argument builders."""
    import torch

    cuda = torch.cuda.is_available()
    return {"cuda": cuda, "cuda_bf16": cuda and torch.cuda.is_bf16_supported()}


def train_selecting(
    make_trainer: Callable[[list[Any]], Any],
    tokenizer: Any,
    selector: StepSelector,
    *,
    adapter_dir: Path,
    parent_id: str,
    validation_keys: dict[str, str],
    on_step: StepCallback,
    on_validation: ValidationCallback,
    baseline: bool = False,
    eval_seed: int | None = None,
) -> TrainOutcome:
    """Builds the trainer with the callback that, at each evaluation, measures the drift from the parent, keeps the
    best step's adapter in adapter_dir and stops training when the selector says so; then trains, evaluating the
    last step if it was not. `baseline`: the parent is evaluated first (step 0), the point a trained step must beat.
    `eval_seed`: every evaluation samples from this seed (the same draws each time), the training's own random
    state put back after it."""
    import torch
    from transformers import PrinterCallback, TrainerCallback

    started = [time.monotonic()]
    drift: list[ReferenceDrift] = []
    saved_rng: list[Any] = []

    def seed_evaluation() -> None:
        if eval_seed is not None:
            saved_rng.append(torch.random.get_rng_state())
            torch.manual_seed(eval_seed)

    class SelectBest(TrainerCallback):
        def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            started[0] = time.monotonic()

        def on_log(self, args: Any, state: Any, control: Any, logs: dict | None = None, **kwargs: Any) -> None:
            on_step(state.global_step, logs or {}, time.monotonic() - started[0])

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            # The flow callback (first in the list) has decided whether this step evaluates.
            if control.should_evaluate:
                seed_evaluation()

        def on_evaluate(self, args: Any, state: Any, control: Any, metrics: dict | None = None, **kwargs: Any) -> None:
            if saved_rng:
                torch.random.set_rng_state(saved_rng.pop())
            peft_model = kwargs["model"]
            kl = drift[0].kl(peft_model) if drift else None
            record = validation_record(
                state.global_step, metrics or {}, kl, time.monotonic() - started[0], validation_keys
            )
            if selector.observe(record):
                peft_model.save_pretrained(adapter_dir, selected_adapters=["default"])
            on_validation(record)
            if selector.should_stop:
                control.should_training_stop = True

    trainer = make_trainer([SelectBest()])
    # Its log dicts would mix with the ECHOLOOP_PROGRESS lines on stdout; SelectBest reports the same.
    trainer.remove_callback(PrinterCallback)
    drift.append(
        ReferenceDrift.sample(trainer.model, tokenizer, load_reference_prompts(), KL_TOKENS, KL_SEED, parent_id)
    )
    if baseline:
        seed_evaluation()
        trainer.evaluate()
    if not selector.should_stop:
        trainer.train()
        evaluated = selector.history[-1]["step"] if selector.history else None
        if not selector.should_stop and evaluated != trainer.state.global_step:
            seed_evaluation()
            trainer.evaluate()
    rank = int(trainer.model.peft_config["default"].r)
    return TrainOutcome(seconds=time.monotonic() - started[0], selection=selector.summary(), lora_r=rank)
