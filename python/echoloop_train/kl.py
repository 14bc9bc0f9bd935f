"""Drift from the parent: KL(candidate || parent) per token on fixed reference prompts (needs torch).

The parent samples one completion per prompt once, before training, with a fixed seed, and its next-token
distributions along them are kept; at each evaluation the KL between the policy's and the parent's distributions is
taken over the whole vocabulary at every completion position, and averaged over positions. Exact at each position
(no sampling noise in the estimate), and the same positions for every step, so the curve is comparable within a job
and, with the same prompts and seed, across generations.
"""

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from .cache import cache_dir

REFERENCE_PROMPTS = Path(__file__).with_name("reference_prompts.json")


def load_reference_prompts(path: Path = REFERENCE_PROMPTS) -> list[str]:
    return [str(p) for p in json.loads(path.read_text(encoding="utf-8"))["prompts"]]


class ReferenceDrift:
    def __init__(self, sequences: Any, completion_mask: Any, attention_mask: Any) -> None:
        self.sequences = sequences
        # [batch, completion tokens]: True where the token is part of the completion (up to its end of text).
        self.completion_mask = completion_mask
        self.attention_mask = attention_mask
        # The parent's next-token log-probabilities over the completion: it does not change, so they are kept.
        self.parent_log_probs: Any = None

    @classmethod
    def sample(
        cls, model: Any, tokenizer: Any, prompts: list[str], max_new_tokens: int, seed: int, parent_id: str
    ) -> "ReferenceDrift":
        """The parent's completions: call before the first training step, while the policy still is the parent.

        They depend only on the parent (`parent_id`: its base and adapter hashes), the prompts and the seed, so they
        are kept in the machine's cache and every job from the same parent skips the sampling."""
        import torch

        key = hashlib.sha256(json.dumps([parent_id, prompts, seed, max_new_tokens]).encode()).hexdigest()[:32]
        cached = cache_dir() / "kl-reference" / f"{key}.pt"
        if cached.is_file():
            tensors = torch.load(cached)
        else:
            tensors = cls._generate(model, tokenizer, prompts, max_new_tokens, seed)
            cached.parent.mkdir(parents=True, exist_ok=True)
            partial = cached.with_name(f".{cached.name}.{os.getpid()}")
            torch.save(tensors, partial)
            os.replace(partial, cached)
        drift = cls(tensors["sequences"], tensors["completion_mask"], tensors["attention_mask"])
        was_training = model.training
        model.eval()
        with torch.no_grad():
            drift.parent_log_probs = drift._log_probs(model)
        model.train(was_training)
        return drift

    @staticmethod
    def _generate(model: Any, tokenizer: Any, prompts: list[str], max_new_tokens: int, seed: int) -> dict[str, Any]:
        import torch

        texts = [
            tokenizer.apply_chat_template([{"role": "user", "content": p}], tokenize=False, add_generation_prompt=True)
            for p in prompts
        ]
        side = tokenizer.padding_side
        tokenizer.padding_side = "left"
        try:
            batch = tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
        finally:
            tokenizer.padding_side = side
        generator_state = torch.random.get_rng_state()
        torch.manual_seed(seed)
        was_training = model.training
        model.eval()
        with torch.no_grad():
            sequences = model.generate(
                **batch,
                do_sample=True,
                temperature=1.0,
                top_k=0,
                top_p=1.0,
                max_new_tokens=max_new_tokens,
                pad_token_id=tokenizer.pad_token_id,
            )
        model.train(was_training)
        torch.random.set_rng_state(generator_state)
        completion = sequences[:, batch["input_ids"].shape[1] :]
        # Positions after a sequence's end of text are padding: not measured.
        is_end = completion == tokenizer.eos_token_id
        ends_so_far = is_end.cumsum(dim=1)
        after_end = (ends_so_far > 1) | ((ends_so_far == 1) & ~is_end)
        attention_mask = torch.cat([batch["attention_mask"].bool(), ~after_end], dim=1)
        return {"sequences": sequences, "completion_mask": ~after_end, "attention_mask": attention_mask}

    def kl(self, model: Any) -> float:
        """Mean KL(model || parent) in nats per completion token."""
        import torch

        was_training = model.training
        model.eval()
        with torch.no_grad():
            policy = self._log_probs(model)
        model.train(was_training)
        reference = self.parent_log_probs
        # The logits at position t predict token t + 1: a completion token's distribution sits one to its left, and
        # the last position predicts past the end.
        per_position = (policy.exp() * (policy - reference)).sum(dim=-1)[:, :-1]
        return float(per_position[self.completion_mask].mean())

    def _log_probs(self, model: Any) -> Any:
        import torch.nn.functional as F

        return F.log_softmax(self._logits(model), dim=-1)

    def _logits(self, model: Any) -> Any:
        attention = self.attention_mask.long()
        # Left-padded prompts: positions count from each sequence's first real token, as generate() counted them.
        positions = (attention.cumsum(dim=1) - 1).clamp(min=0)
        # Only the completion's distributions are needed: the vocabulary-wide work is done for those alone.
        keep = self.completion_mask.shape[1] + 1
        return model(
            input_ids=self.sequences, attention_mask=attention, position_ids=positions, logits_to_keep=keep
        ).logits.float()
