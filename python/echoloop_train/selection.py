"""How long to train and which step to keep: steps from the data (epochs), the step chosen on validation pairs.

Pure (no torch): the trainer feeds it each evaluation and obeys its answers.
"""

import math
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TrainingPlan:
    steps_per_epoch: int
    steps: int
    eval_every: int

    def as_manifest(self) -> dict[str, int]:
        return {"stepsPerEpoch": self.steps_per_epoch, "plannedSteps": self.steps, "evalEvery": self.eval_every}


def plan_training(
    train_pairs: int, batch_size: int, epochs: float, max_steps: int, eval_every: int | None
) -> TrainingPlan:
    """Steps scale with the data (`epochs` passes over it), capped at `max_steps`; two evaluations an epoch unless
    `eval_every` says otherwise, so early stopping can act within the first pass."""
    per_epoch = max(1, math.ceil(train_pairs / batch_size))
    steps = max(1, min(max_steps, math.ceil(epochs * per_epoch)))
    every = eval_every if eval_every is not None else max(1, math.ceil(per_epoch / 2))
    return TrainingPlan(steps_per_epoch=per_epoch, steps=steps, eval_every=min(every, steps))


def _value(record: dict[str, Any], key: str) -> float:
    value = record.get(key)
    return value if isinstance(value, float) else -math.inf


@dataclass(frozen=True)
class Objective:
    """What a validation point is ranked by (its keys, in order: the first decides, the next breaks ties), and when
    the best point counts as learnt against the parent's own point (step 0, where the template measures one)."""

    keys: tuple[str, ...]

    def rank(self, record: dict[str, Any]) -> tuple[float, ...]:
        """Missing values rank last."""
        return tuple(_value(record, key) for key in self.keys)

    def learnt(self, best: dict[str, Any], parent: dict[str, Any] | None) -> tuple[bool, str]:
        raise NotImplementedError


class PreferenceObjective(Objective):
    """DPO: validation preference accuracy, then the mean margin. Its implicit-reward accuracy starts at 0 (the
    policy equals its reference, every margin is 0), so a step only counts as learnt when more than half of the
    validation pairs moved the right way and their mean margin is positive."""

    def __init__(self) -> None:
        super().__init__(keys=("valAccuracy", "valMargin"))

    def learnt(self, best: dict[str, Any], parent: dict[str, Any] | None) -> tuple[bool, str]:
        accuracy, margin = self.rank(best)
        if accuracy > 0.5 and margin > 0:
            return True, f"validation accuracy {accuracy:.3f}, margin {margin:.3f} at step {best['step']}"
        return False, (
            f"no validation gain: the best point (step {best['step']}) has accuracy {accuracy:.3f} and margin "
            f"{margin:.3f}; more than 0.5 and above 0 are needed"
        )


class RewardObjective(Objective):
    """GRPO: the mean reward of the policy's replies to the validation prompts. Learnt when a trained step's reward
    is above the parent's own on the same prompts (step 0)."""

    def __init__(self) -> None:
        super().__init__(keys=("valReward",))

    def learnt(self, best: dict[str, Any], parent: dict[str, Any] | None) -> tuple[bool, str]:
        (reward,) = self.rank(best)
        if parent is None:
            return False, "the parent's validation reward (step 0) was not measured"
        (before,) = self.rank(parent)
        if best["step"] != parent["step"] and reward > before:
            return True, f"validation reward {reward:.4f} at step {best['step']}, the parent's {before:.4f}"
        return False, f"no validation gain: no step's reward is above the parent's {before:.4f} (step 0)"


@dataclass
class StepSelector:
    """Keeps the best validation point so far and says when to stop: `patience` evaluations in a row brought nothing
    better, or the policy left its trust region (KL to the parent over `max_kl` nats per token).

    Validation margins keep growing as the policy moves away from its parent, even after it stopped getting better
    for people (the issue's candidate repeated one sentence at a training accuracy of 1.0), so only steps within the
    KL budget can be chosen. A best point that the objective does not count as learnt did not generalise, and no
    adapter leaves the job. A point at step 0 is the parent's own: the baseline, kept as the best until beaten.
    """

    patience: int
    max_kl: float
    objective: Objective = field(default_factory=PreferenceObjective)
    best: dict[str, Any] | None = None
    parent: dict[str, Any] | None = None
    evaluations: int = 0
    since_best: int = 0
    over_budget: bool = False
    history: list[dict[str, Any]] = field(default_factory=list)

    def observe(self, record: dict[str, Any]) -> bool:
        """Takes one validation point; True when it is the new best (its adapter is the one to keep)."""
        self.evaluations += 1
        self.history.append(record)
        if record.get("step") == 0:
            self.parent = record
        kl = record.get("klToParent")
        # A drift that could not be measured is outside the budget.
        if not isinstance(kl, float) or kl > self.max_kl:
            self.over_budget = True
            return False
        if self.best is None or self.objective.rank(record) > self.objective.rank(self.best):
            self.best = record
            self.since_best = 0
            return True
        self.since_best += 1
        return False

    @property
    def should_stop(self) -> bool:
        return self.over_budget or self.since_best >= self.patience

    @property
    def stopped_by(self) -> str | None:
        if self.over_budget:
            return "kl_budget"
        return "patience" if self.since_best >= self.patience else None

    def generalised(self) -> tuple[bool, str]:
        best = self.best
        if best is None:
            return False, (
                f"no step within the KL budget of {self.max_kl} nats per token"
                if self.over_budget
                else "no validation point was measured"
            )
        return self.objective.learnt(best, self.parent)

    def summary(self) -> dict[str, Any]:
        ok, reason = self.generalised()
        best = self.best or {}
        return {
            "generalised": ok,
            "reason": reason,
            "step": best.get("step"),
            **{key: best.get(key) for key in ("valLoss", *self.objective.keys)},
            "klToParent": best.get("klToParent"),
            "maxKl": self.max_kl,
            "evaluations": self.evaluations,
            "stoppedBy": self.stopped_by,
        }
