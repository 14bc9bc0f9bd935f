"""The `verl-grpo` job template: renders VeRL's multi-turn GRPO run for one `verl` dataset snapshot.

    python -m echoloop_verl.grpo_template --snapshot DIR --output DIR [--model-path HF_DIR] [--labeller-url URL]
        [--simulator-url URL] [--profiles FILE] [--n-gpus N] [--nnodes N] [--max-steps N] [--rollout-n N]
        [--lora-rank R] [--lora-alpha A] [--train-batch-size N] [--max-user-turns N] [--system-prompt TEXT]

VeRL needs a GPU Ray cluster, so this renders and runs nothing. It writes into OUTPUT:
    data/train.jsonl, data/val.jsonl   the snapshot's rows prepared for training (below)
    interaction.yaml                   interactions the rows name (VeRL's `interaction: [{name, class_name, config}]`)
    grpo.yaml                          a Hydra config over VeRL's ppo_trainer: GRPO, multi-turn rollout, LoRA, the
                                       labeller as custom reward function
    command.sh                         converts the data to parquet (VeRL's RLHFDataset reads parquet) and runs
                                       `python3 -m verl.trainer.main_ppo --config-path OUTPUT --config-name grpo`
    manifest.json                      {"template": "verl-grpo", "datasetId", "createdAt", "rendered", "adapters",
                                       "metrics", "note"}
and prints `ECHOLOOP_MANIFEST <absolute path of manifest.json>` as its last line on stdout. A bad input (a missing
or empty snapshot, a snapshot of another kind, a bad row) exits 2 with one line on stderr.

The rows. Each snapshot row (kind `verl`: data_source, prompt, ability, reward_model, extra_info) keeps its fields,
and its extra_info gains `history` (the prompt's user and assistant messages: what reward_fn.py sends the labeller
with the reply) and `interaction_kwargs = {"name": "single_reply"}`: the real user cannot answer a rollout, so the
episode ends after the policy's reply, and the labeller scores it. With `--profiles` (the sentient profiles jsonl),
each training-pool profile with an opener adds a simulator row: the prompt is the opener, `interaction_kwargs =
{"name": "sentient_user", "profile_id", "max_turns"}`, and the eval-runner's simulated user carries on the dialogue
(RLVER); the labeller scores the policy's first reply to the opener. Benchmark profiles are never used.
"""

from __future__ import annotations

import argparse
import sys

from .grpo_inputs import TemplateError, read_snapshot, read_training_profiles
from .grpo_render import (
    PACKAGE_DIR,
    REWARD_FN_NAME,
    REWARD_FN_PATH,
    TEMPLATE,
    command_script,
    grpo_config,
    interaction_config,
    render,
)
from .grpo_rows import SIMULATOR_DATA_SOURCE, prepare_rows
from .single_reply_interaction import SingleReplyInteraction

# Re-exported: the rendered interaction.yaml names echoloop_verl.grpo_template.SingleReplyInteraction, and
# echoloop_train.trl_grpo imports the profile reader from here.
__all__ = [
    "PACKAGE_DIR",
    "REWARD_FN_NAME",
    "REWARD_FN_PATH",
    "SIMULATOR_DATA_SOURCE",
    "TEMPLATE",
    "SingleReplyInteraction",
    "TemplateError",
    "command_script",
    "grpo_config",
    "interaction_config",
    "main",
    "parser",
    "prepare_rows",
    "read_snapshot",
    "read_training_profiles",
    "render",
]


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m echoloop_verl.grpo_template", description=__doc__.split("\n\n")[0])
    p.add_argument("--snapshot", required=True, help="a `verl` dataset snapshot folder (manifest.json + rows)")
    p.add_argument("--output", required=True, help="where to write grpo.yaml, command.sh, data/, manifest.json")
    p.add_argument("--model-path", default="Qwen/Qwen2.5-7B-Instruct", help="HF model folder or hub id")
    p.add_argument("--labeller-url", help="reward labeller base URL (else ECHOLOOP_LABELLER_URL at run time)")
    p.add_argument("--simulator-url", help="eval-runner base URL (else ECHOLOOP_SIMULATOR_URL at run time)")
    p.add_argument("--profiles", help="sentient profiles jsonl: its training pool adds simulator rows")
    p.add_argument("--system-prompt", help="a system message put before prompts that have none")
    p.add_argument("--n-gpus", type=_positive, default=8, help="GPUs per node")
    p.add_argument("--nnodes", type=_positive, default=1)
    p.add_argument("--max-steps", type=_positive, default=None, help="total training steps (default: one epoch)")
    p.add_argument("--rollout-n", type=int, default=4, help="GRPO group size (at least 2)")
    p.add_argument("--rollout-name", default="sglang", choices=["sglang", "vllm"])
    p.add_argument("--lora-rank", type=_positive, default=64)
    p.add_argument("--lora-alpha", type=_positive, default=32)
    p.add_argument("--lr", type=float, default=1e-6)
    p.add_argument("--train-batch-size", type=_positive, default=32)
    p.add_argument("--ppo-mini-batch-size", type=_positive, default=16)
    p.add_argument("--max-prompt-length", type=_positive, default=4096)
    p.add_argument("--max-response-length", type=_positive, default=4096)
    p.add_argument("--max-user-turns", type=_positive, default=8, help="simulated user turns per episode (RLVER: 8)")
    p.add_argument("--save-freq", type=int, default=50)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.rollout_n < 2:
            raise TemplateError(
                f"--rollout-n must be at least 2 for GRPO (a group of one has no advantage), got {args.rollout_n}"
            )
        manifest_path = render(args)
    except TemplateError as error:
        print(f"{TEMPLATE}: error: {error}", file=sys.stderr)
        return 2
    print(f"{TEMPLATE}: rendered {manifest_path.parent} (render only: VeRL needs a GPU cluster)")
    print(f"ECHOLOOP_MANIFEST {manifest_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
