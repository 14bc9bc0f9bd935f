"""The verl-grpo template: renders from a small `verl` snapshot and checks what VeRL would read. The live test runs
the rendered interaction config's sentient user for one episode against the eval-runner (started by
test/rl/verl-grpo.int-spec.ts, whose scripted simulator warms ECHOLOOP_TEST_TRAIN_PROFILE by 10 a turn)."""

import importlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Any

PYTHON_DIR = Path(__file__).resolve().parents[1]
REPO_PROFILES = PYTHON_DIR.parent / "data" / "sentient" / "profiles.jsonl"
DATASET_ID = "0b8f4c1e-3b7a-4c55-9a2e-5d6f7a8b9c0d"


def load_yaml(path: Path) -> Any:
    try:
        import yaml
    except ImportError:  # the template writes JSON, which is YAML, without PyYAML
        return json.loads("\n".join(line for line in path.read_text().splitlines() if not line.startswith("#")))
    return yaml.safe_load(path.read_text())


def verl_row(index: int, split: str, prompt: list[dict[str, str]], reference: str = "") -> dict[str, Any]:
    return {
        "data_source": "echoloop_live",
        "prompt": prompt,
        "ability": "empathy",
        "reward_model": {"style": "model", "ground_truth": reference},
        "extra_info": {
            "split": split,
            "index": index,
            "turn_id": f"8f0e2a4c-1111-4a1b-9c1d-00000000000{index}",
            "user": f"user-{index}",
            "interaction_kwargs": {"name": "sentient_user"},
        },
    }


def write_snapshot(folder: Path, rows: list[dict[str, Any]], kind: str = "verl") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "verl.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    manifest = {
        "id": DATASET_ID,
        "kind": kind,
        "format": "jsonl",
        "rows": len(rows),
        "files": [{"name": "verl.jsonl", "rows": len(rows), "bytes": 1, "sha256": "0" * 64}],
        "createdAt": "2026-01-01T00:00:00.000Z",
    }
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


def render(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(PYTHON_DIR)}
    return subprocess.run(
        [sys.executable, "-m", "echoloop_verl.grpo_template", *args], capture_output=True, text=True, env=env
    )


def import_class(dotted: str) -> type:
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


class GrpoTemplateTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="verl-grpo-"))
        self.snapshot = write_snapshot(
            self.tmp / "snapshot",
            [
                verl_row(0, "train", [{"role": "user", "content": "I failed my driving test again."}]),
                verl_row(
                    1,
                    "train",
                    [
                        {"role": "user", "content": "hi"},
                        {"role": "assistant", "content": "hey, how are you?"},
                        {"role": "user", "content": "my cat is sick"},
                    ],
                    reference="Oh no. What did the vet say?",
                ),
                verl_row(2, "test", [{"role": "user", "content": "long day"}]),
            ],
        )
        self.profiles = self.tmp / "profiles.jsonl"
        self.profiles.write_text(
            "".join(
                json.dumps(p) + "\n"
                for p in [
                    {"id": "train-a", "pool": "train", "firstMessage": "cant sleep again"},
                    {"id": "train-b", "pool": "train", "firstMessage": "my boss yelled at me"},
                    {"id": "bench-a", "pool": "benchmark", "firstMessage": "never for training"},
                ]
            )
        )

    def test_renders_a_multi_turn_grpo_config_verl_can_run(self) -> None:
        out = self.tmp / "out"
        result = render(
            "--snapshot",
            str(self.snapshot),
            "--output",
            str(out),
            "--profiles",
            str(self.profiles),
            "--model-path",
            "/models/qwen",
            "--n-gpus",
            "4",
            "--max-steps",
            "20",
            "--labeller-url",
            "http://labeller:3002",
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        last = result.stdout.strip().splitlines()[-1]
        self.assertEqual(last, f"ECHOLOOP_MANIFEST {(out / 'manifest.json').resolve()}")

        manifest = json.loads((out / "manifest.json").read_text())
        self.assertEqual(
            {k: manifest[k] for k in ("template", "datasetId", "rendered", "adapters", "metrics")},
            {
                "template": "verl-grpo",
                "datasetId": DATASET_ID,
                "rendered": ["grpo.yaml", "command.sh"],
                "adapters": [],
                "metrics": {},
            },
        )
        self.assertIn("render only", manifest["note"])
        self.assertRegex(manifest["createdAt"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")

        config = load_yaml(out / "grpo.yaml")
        self.assertEqual(config["defaults"], ["ppo_trainer", "_self_"])
        self.assertEqual(config["algorithm"]["adv_estimator"], "grpo")
        rollout = config["actor_rollout_ref"]["rollout"]
        self.assertIsInstance(rollout["n"], int)
        self.assertGreaterEqual(rollout["n"], 2)
        self.assertIs(rollout["multi_turn"]["enable"], True)
        self.assertIsInstance(rollout["multi_turn"]["max_user_turns"], int)
        model = config["actor_rollout_ref"]["model"]
        self.assertEqual(model["path"], "/models/qwen")
        self.assertIsInstance(model["lora_rank"], int)
        self.assertGreater(model["lora_rank"], 0)
        self.assertEqual(model["target_modules"], "all-linear")
        self.assertEqual(rollout["load_format"], "safetensors")
        self.assertIs(config["data"]["return_raw_chat"], True)
        self.assertEqual((config["trainer"]["n_gpus_per_node"], config["trainer"]["total_training_steps"]), (4, 20))

        # The reward function: a file VeRL loads by path, exposing the configured name.
        reward = config["custom_reward_function"]
        self.assertEqual(config["reward_model"]["reward_manager"], "batch")
        spec = importlib.util.spec_from_file_location("verl_custom_reward", reward["path"])
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        self.assertTrue(callable(getattr(module, reward["name"])))
        self.assertTrue(callable(module.compute_score))

        # The interactions every row names exist and import.
        interaction_path = Path(rollout["multi_turn"]["interaction_config_path"])
        self.assertTrue(interaction_path.is_file())
        interactions = {i["name"]: i for i in load_yaml(interaction_path)["interaction"]}
        for interaction in interactions.values():
            import_class(interaction["class_name"])
        self.assertEqual(interactions["sentient_user"]["class_name"], "echoloop_verl.SentientUserInteraction")

        # The data: parquet made by command.sh from the rendered jsonl next to it.
        train = self.rows(config["data"]["train_files"])
        val = self.rows(config["data"]["val_files"])
        self.assertEqual(len(train), 2 + 2)
        self.assertEqual([r["extra_info"]["index"] for r in val], [2])
        for row in train + val:
            info = row["extra_info"]
            self.assertIn(info["interaction_kwargs"]["name"], interactions)
            self.assertEqual(info["history"][-1], row["prompt"][-1])
            self.assertEqual(info["history"][-1]["role"], "user")
            self.assertIsInstance(row["reward_model"]["ground_truth"], str)
        live = [r for r in train if r["data_source"] == "echoloop_live"]
        self.assertEqual({r["extra_info"]["interaction_kwargs"]["name"] for r in live}, {"single_reply"})
        self.assertEqual(live[1]["reward_model"]["ground_truth"], "Oh no. What did the vet say?")
        self.assertEqual(len(live[1]["extra_info"]["history"]), 3)
        simulated = [r for r in train if r["data_source"] == "echoloop_simulator"]
        self.assertEqual(
            [r["extra_info"]["interaction_kwargs"]["profile_id"] for r in simulated], ["train-a", "train-b"]
        )
        self.assertEqual(simulated[0]["prompt"], [{"role": "user", "content": "cant sleep again"}])
        self.assertEqual(len({r["extra_info"]["index"] for r in train + val}), 5)

        command = (out / "command.sh").read_text()
        self.assertTrue(os.access(out / "command.sh", os.X_OK))
        self.assertIn(f"python3 -m verl.trainer.main_ppo --config-path {out.resolve()} --config-name grpo", command)
        self.assertIn("then export ECHOLOOP_LABELLER_URL=http://labeller:3002; fi", command)
        self.assertIn("ECHOLOOP_LABELLER_KEY:?", command)
        self.assertEqual(subprocess.run(["bash", "-n", str(out / "command.sh")]).returncode, 0)

    def rows(self, files: list[str]) -> list[dict[str, Any]]:
        self.assertIsInstance(files, list)
        rows = []
        for name in files:
            source = Path(name).with_suffix(".jsonl")
            self.assertTrue(name.endswith(".parquet") and source.is_file(), name)
            rows += [json.loads(line) for line in source.read_text().splitlines()]
        return rows

    def test_a_bad_snapshot_exits_2_with_one_line(self) -> None:
        empty = write_snapshot(self.tmp / "empty", [])
        turns = write_snapshot(self.tmp / "turns", [verl_row(0, "train", [{"role": "user", "content": "x"}])], "turns")
        no_user = write_snapshot(self.tmp / "nouser", [verl_row(0, "train", [{"role": "assistant", "content": "x"}])])
        cases = {
            "missing": (["--snapshot", str(self.tmp / "nowhere")], "is not a folder"),
            "empty": (["--snapshot", str(empty)], "is empty"),
            "kind": (["--snapshot", str(turns)], "not 'verl'"),
            "prompt": (["--snapshot", str(no_user)], "must end with the user message"),
            "group": (["--snapshot", str(self.snapshot), "--rollout-n", "1"], "at least 2"),
            "profiles": (
                ["--snapshot", str(self.snapshot), "--profiles", str(self.tmp / "none.jsonl")],
                "does not exist",
            ),
        }
        for case, (args, message) in cases.items():
            with self.subTest(case):
                result = render(*args, "--output", str(self.tmp / f"out-{case}"))
                self.assertEqual(result.returncode, 2)
                self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
                self.assertIn(message, result.stderr)
                self.assertNotIn("ECHOLOOP_MANIFEST", result.stdout)
                self.assertFalse((self.tmp / f"out-{case}" / "manifest.json").exists())


LIVE_PROFILE = os.environ.get("ECHOLOOP_TEST_TRAIN_PROFILE")


@unittest.skipUnless(
    os.environ.get("ECHOLOOP_SIMULATOR_URL") and LIVE_PROFILE,
    "ECHOLOOP_SIMULATOR_URL/ECHOLOOP_TEST_TRAIN_PROFILE unset: runs from test/rl/verl-grpo.int-spec.ts",
)
class RenderedInteractionLiveTest(unittest.IsolatedAsyncioTestCase):
    async def test_the_rendered_sentient_user_runs_one_episode_from_its_row(self) -> None:
        tmp = Path(tempfile.mkdtemp(prefix="verl-grpo-live-"))
        snapshot = write_snapshot(tmp / "snapshot", [verl_row(0, "train", [{"role": "user", "content": "hi"}])])
        out = tmp / "out"
        result = render(
            "--snapshot",
            str(snapshot),
            "--output",
            str(out),
            "--profiles",
            str(REPO_PROFILES),
            "--simulator-url",
            os.environ["ECHOLOOP_SIMULATOR_URL"],
        )
        self.assertEqual(result.returncode, 0, result.stderr)
        config = load_yaml(out / "grpo.yaml")
        multi_turn = config["actor_rollout_ref"]["rollout"]["multi_turn"]
        specs = {i["name"]: i for i in load_yaml(Path(multi_turn["interaction_config_path"]))["interaction"]}
        spec = specs["sentient_user"]
        interaction = import_class(spec["class_name"])({"name": spec["name"], **spec["config"]})
        rows = [json.loads(line) for line in (out / "data" / "train.jsonl").read_text().splitlines()]
        row = next(r for r in rows if r["extra_info"]["interaction_kwargs"].get("profile_id") == LIVE_PROFILE)

        # As VeRL's agent loop does: start with the row's interaction_kwargs, then a user turn after each reply.
        instance = await interaction.start_interaction("rollout-1", **row["extra_info"]["interaction_kwargs"])
        self.assertEqual(interaction.opener(instance), row["prompt"][-1]["content"])
        messages = list(row["prompt"])
        scores = []
        for turn in range(multi_turn["max_assistant_turns"]):
            messages.append({"role": "assistant", "content": f"<think>listen</think>That sounds hard ({turn})."})
            done, user, score, meta = await interaction.generate_response(instance, messages)
            scores.append(score)
            if done:
                break
            messages.append({"role": "user", "content": user})
        self.assertTrue(done)
        self.assertEqual(meta["end_reason"], "score_max")
        self.assertEqual(scores, [0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
        self.assertEqual(await interaction.calculate_score(instance), 1.0)
        await interaction.finalize_interaction(instance)

        single = specs["single_reply"]
        live = import_class(single["class_name"])({"name": "single_reply", **single["config"]})
        instance = await live.start_interaction("rollout-2", name="single_reply")
        self.assertEqual((await live.generate_response(instance, messages))[0], True)


if __name__ == "__main__":
    unittest.main()
