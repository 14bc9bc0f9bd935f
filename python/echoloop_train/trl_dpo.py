"""Job template `trl-dpo`: DPO LoRA training on a snapshot's preference pairs, validated on its own users.

    python -m echoloop_train.trl_dpo --snapshot DIR --output DIR --dataset-id ID [--parent-adapter DIR] [...]

The snapshot holds train.jsonl and validation.jsonl (other users than train's). Steps follow the data (--epochs,
capped by --max-steps); the step kept is the best on validation, and training stops --patience evaluations after
it. A run whose best step did not generalise ends with a manifest that says so and no adapter.

Exit codes: 0 done (OUTPUT/manifest.json written last), 2 invalid input (before torch is loaded), 1 any other failure.
"""

import argparse
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

from . import job
from .dpo import DpoSettings, train
from .metrics import DPO_LOG_KEYS
from .policy import settings_of
from .rows import InvalidInput, load_pairs

TEMPLATE = job.Template(name="trl-dpo", log_keys=DPO_LOG_KEYS, headline=("rewardAccuracy",))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m echoloop_train.trl_dpo", description=__doc__.splitlines()[0])
    job.add_common_arguments(parser, epochs=3.0, learning_rate=5e-4, beta=0.1)
    parser.add_argument("--max-length", type=int, default=256)
    return parser.parse_args(argv)


def settings_from(args: argparse.Namespace) -> DpoSettings:
    settings = settings_of(DpoSettings, args)
    job.check_common(settings)
    if settings.max_length < 1:
        raise InvalidInput("--max-length must be at least 1")
    if settings.beta <= 0:
        raise InvalidInput("--beta must be positive")
    return settings


def prepare(argv: list[str] | None) -> Callable[[], Path]:
    """Everything the run reads, checked before the training stack loads."""
    args = parse_args(argv)
    settings = settings_from(args)
    parent = job.checked_inputs(args)
    pairs = load_pairs(args.snapshot / "train.jsonl")
    validation = load_pairs(args.snapshot / "validation.jsonl")
    trainer = partial(train, pairs, validation, settings=settings, parent_adapter=parent)
    counts = {"trainPairs": len(pairs), "validationPairs": len(validation)}
    return lambda: job.run(TEMPLATE, args, settings, (len(pairs), len(validation)), counts, parent, trainer)


def main(argv: list[str] | None = None) -> int:
    return job.main(TEMPLATE.name, lambda: prepare(argv))


if __name__ == "__main__":
    sys.exit(main())
