"""DPO with a LoRA adapter (TRL), on a GPU when there is one, else CPU; torch is imported only when training runs."""

import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .rows import Pair

LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj"]

# on_step(step, TRL's log entry, seconds since training began)
StepCallback = Callable[[int, dict[str, Any], float], None]


@dataclass(frozen=True)
class DpoSettings:
    max_steps: int
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


def dpo_arguments(settings: DpoSettings, output_dir: str, *, cuda: bool, cuda_bf16: bool) -> dict[str, Any]:
    """TRL's DPOConfig arguments. The same job trains on a GPU where its worker has one (production), on CPU here."""
    return {
        "output_dir": output_dir,
        "max_steps": settings.max_steps,
        "per_device_train_batch_size": settings.batch_size,
        "learning_rate": settings.learning_rate,
        "beta": settings.beta,
        "max_length": settings.max_length,
        "seed": settings.seed,
        "logging_steps": 1,
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


def train(pairs: list[Pair], hf_base: Path, adapter_dir: Path, settings: DpoSettings, on_step: StepCallback) -> float:
    """Trains, saves the PEFT adapter into adapter_dir and returns the training seconds (model loading excluded)."""
    import torch
    from datasets import Dataset
    from peft import LoraConfig
    from transformers import AutoModelForCausalLM, AutoTokenizer, PrinterCallback, TrainerCallback
    from trl import DPOConfig, DPOTrainer

    torch.set_num_threads(settings.threads)
    tokenizer = AutoTokenizer.from_pretrained(hf_base)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(hf_base, dtype=torch.float32)
    started = [time.monotonic()]

    class StepLogger(TrainerCallback):
        def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            started[0] = time.monotonic()

        def on_log(self, args: Any, state: Any, control: Any, logs: dict | None = None, **kwargs: Any) -> None:
            on_step(state.global_step, logs or {}, time.monotonic() - started[0])

    lora = LoraConfig(
        r=settings.lora_r,
        lora_alpha=settings.lora_alpha,
        lora_dropout=0.0,
        target_modules=LORA_TARGETS,
        task_type="CAUSAL_LM",
    )
    with tempfile.TemporaryDirectory(prefix="trl-dpo-") as scratch:
        config = DPOConfig(
            **dpo_arguments(
                settings,
                scratch,
                cuda=torch.cuda.is_available(),
                cuda_bf16=torch.cuda.is_available() and torch.cuda.is_bf16_supported(),
            )
        )
        trainer = DPOTrainer(
            model=model,
            args=config,
            train_dataset=Dataset.from_list(pairs),
            processing_class=tokenizer,
            peft_config=lora,
            callbacks=[StepLogger()],
        )
        # Its log dicts would mix with the ECHOLOOP_PROGRESS lines on stdout; StepLogger reports the same.
        trainer.remove_callback(PrinterCallback)
        trainer.train()
        seconds = time.monotonic() - started[0]
        trainer.model.save_pretrained(adapter_dir)
    return seconds
