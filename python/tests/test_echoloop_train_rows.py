"""echoloop_train's pure helpers (no torch): snapshot rows, metrics, manifest, progress lines, and the CLI's input
checks, which must answer before the training stack is imported (this runs with the system python)."""

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
from datetime import UTC, datetime
from pathlib import Path

from echoloop_train.cache import build_once
from echoloop_train.dpo import DpoSettings, dpo_arguments
from echoloop_train.manifest import Adapter, BaseModel, build_manifest, write_json_atomic
from echoloop_train.metrics import metric_record, summarize, validation_record
from echoloop_train.progress import progress_line
from echoloop_train.rows import InvalidInput, load_pairs, to_pair
from echoloop_train.selection import StepSelector, plan_training

PYTHON_DIR = Path(__file__).resolve().parents[1]
SYSTEM = {"role": "system", "content": "You are Echo."}
USER = {"role": "user", "content": "I feel lonely."}
CHOSEN = [{"role": "assistant", "content": "I'm sorry, that sounds hard."}]
REJECTED = [{"role": "assistant", "content": "Go out more."}]


def row(**overrides: object) -> dict[str, object]:
    return {"prompt": [SYSTEM, USER], "chosen": CHOSEN, "rejected": REJECTED, "id": "p1", "score": 0.9, **overrides}


def write_snapshot(directory: Path, lines: list[str], validation: list[str] | None = None) -> Path:
    (directory / "train.jsonl").write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    if validation is not None:
        (directory / "validation.jsonl").write_text("".join(f"{line}\n" for line in validation), encoding="utf-8")
    return directory


class RowsTest(unittest.TestCase):
    def test_keeps_only_the_preference_fields(self) -> None:
        extra = {"role": "user", "content": "hi", "name": "Ada"}
        pair = to_pair(row(prompt=[SYSTEM, extra]))
        self.assertEqual(set(pair), {"prompt", "chosen", "rejected"})
        self.assertEqual(pair["prompt"][1], {"role": "user", "content": "hi"})
        self.assertEqual(pair["chosen"], CHOSEN)

    def test_rejects_bad_rows(self) -> None:
        cases = {
            "prompt has no user message": row(prompt=[SYSTEM]),
            "chosen must be a non-empty list": row(chosen=[]),
            "rejected[0].content must be a non-empty string": row(rejected=[{"role": "assistant", "content": " "}]),
            "chosen[0].role must be one of assistant": row(chosen=[USER]),
            "prompt[0].role must be one of system, user, assistant": row(prompt=[{"role": "tool", "content": "x"}]),
            "a row must be a JSON object": [1, 2],
        }
        for message, bad in cases.items():
            with self.subTest(message), self.assertRaisesRegex(InvalidInput, re.escape(message)):
                to_pair(bad)

    def test_loads_a_snapshot_skipping_blank_lines(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            snapshot = write_snapshot(Path(tmp), [json.dumps(row()), "", json.dumps(row())])
            self.assertEqual(len(load_pairs(snapshot / "train.jsonl")), 2)

    def test_names_the_line_of_a_bad_snapshot(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            for lines, message in (
                ([], "holds no preference pairs"),
                ([json.dumps(row()), "{not json"], "line 2: not valid JSON"),
                ([json.dumps(row(chosen=None))], "line 1: chosen must be"),
            ):
                with self.subTest(message), self.assertRaisesRegex(InvalidInput, re.escape(message)):
                    load_pairs(write_snapshot(Path(tmp), lines) / "train.jsonl")
            with self.assertRaisesRegex(InvalidInput, "does not exist"):
                load_pairs(Path(tmp) / "missing" / "train.jsonl")


LOG = {"loss": 0.65, "rewards/accuracies": 1.0, "rewards/margins": 0.12, "learning_rate": 5e-4, "epoch": 0.5}


class MetricsTest(unittest.TestCase):
    def test_maps_trl_log_entries(self) -> None:
        self.assertEqual(
            metric_record(3, LOG, 4.56789),
            {
                "step": 3,
                "loss": 0.65,
                "rewardAccuracy": 1.0,
                "rewardMargin": 0.12,
                "learningRate": 5e-4,
                "epoch": 0.5,
                "elapsedSeconds": 4.568,
            },
        )

    def test_skips_the_end_of_training_summary_and_blanks_non_finite_values(self) -> None:
        self.assertIsNone(metric_record(4, {"train_runtime": 4.7, "train_loss": 0.66}, 5.0))
        record = metric_record(1, {"loss": 0.69, "rewards/margins": float("nan")}, 1.0)
        assert record is not None
        self.assertIsNone(record["rewardMargin"])
        self.assertIsNone(record["rewardAccuracy"])

    def test_maps_trl_evaluations_with_the_drift_and_blanks_non_finite_values(self) -> None:
        metrics = {"eval_loss": 0.4, "eval_rewards/accuracies": 0.75, "eval_rewards/margins": float("inf")}
        self.assertEqual(
            validation_record(6, metrics, 0.1234, 9.87654),
            {
                "step": 6,
                "valLoss": 0.4,
                "valAccuracy": 0.75,
                "valMargin": None,
                "klToParent": 0.1234,
                "elapsedSeconds": 9.877,
            },
        )
        self.assertIsNone(validation_record(6, {}, float("nan"), 1.0)["klToParent"])

    def test_summarizes_first_and_last_steps(self) -> None:
        records = [metric_record(s, {**LOG, "loss": loss}, s) for s, loss in ((1, 0.69), (2, 0.6))]
        summary = summarize([r for r in records if r], 2.34567)
        self.assertEqual(
            summary, {"steps": 2, "trainSeconds": 2.346, "firstLoss": 0.69, "finalLoss": 0.6, "rewardAccuracy": 1.0}
        )
        self.assertEqual(summarize([], 0.0)["steps"], 0)


SETTINGS = DpoSettings(
    max_steps=4, epochs=3.0, patience=2, max_kl=1.0, eval_every=None, batch_size=2, learning_rate=5e-4, beta=0.1,
    lora_r=8, lora_alpha=16, max_length=256, seed=0, threads=2,
)  # fmt: skip
PLAN = plan_training(train_pairs=12, batch_size=2, epochs=3.0, max_steps=40, eval_every=None)


def point(step: int, accuracy: float, margin: float, kl: float = 0.1) -> dict[str, object]:
    return {"step": step, "valAccuracy": accuracy, "valMargin": margin, "klToParent": kl}


class TrainingPlanTest(unittest.TestCase):
    def test_steps_follow_the_data_and_stop_at_the_ceiling(self) -> None:
        self.assertEqual(PLAN.as_manifest(), {"stepsPerEpoch": 6, "plannedSteps": 18, "evalEvery": 3})
        more = plan_training(train_pairs=120, batch_size=2, epochs=3.0, max_steps=40, eval_every=None)
        self.assertEqual((more.steps_per_epoch, more.steps, more.eval_every), (60, 40, 30))
        self.assertEqual(plan_training(1, 2, 0.1, 40, None).steps, 1)
        self.assertEqual(plan_training(12, 2, 3.0, 40, 50).eval_every, 18)


class StepSelectorTest(unittest.TestCase):
    def test_keeps_the_best_validation_step_and_stops_after_patience(self) -> None:
        selector = StepSelector(patience=2, max_kl=1.0)
        self.assertTrue(selector.observe(point(3, 0.6, 0.2)))
        self.assertTrue(selector.observe(point(6, 0.8, 0.1)))
        self.assertFalse(selector.observe(point(9, 0.8, 0.05)))
        self.assertFalse(selector.should_stop)
        self.assertFalse(selector.observe(point(12, 0.7, 0.9)))
        self.assertTrue(selector.should_stop)
        summary = selector.summary()
        self.assertEqual((summary["step"], summary["generalised"], summary["stoppedBy"]), (6, True, "patience"))
        self.assertEqual(summary["evaluations"], 4)

    def test_ties_on_accuracy_go_to_the_larger_margin(self) -> None:
        selector = StepSelector(patience=3, max_kl=1.0)
        selector.observe(point(3, 0.75, 0.2))
        self.assertTrue(selector.observe(point(6, 0.75, 0.4)))

    def test_never_keeps_a_step_beyond_the_trust_region_and_stops_there(self) -> None:
        selector = StepSelector(patience=5, max_kl=0.5)
        selector.observe(point(3, 0.6, 0.2, kl=0.2))
        self.assertFalse(selector.observe(point(6, 1.0, 3.0, kl=0.7)))
        self.assertTrue(selector.should_stop)
        self.assertEqual((selector.summary()["step"], selector.summary()["stoppedBy"]), (3, "kl_budget"))
        unmeasured = StepSelector(patience=5, max_kl=0.5)
        self.assertFalse(unmeasured.observe({**point(3, 1.0, 1.0), "klToParent": None}))
        ok, reason = unmeasured.generalised()
        self.assertFalse(ok)
        self.assertIn("no step within the KL budget of 0.5", reason)

    def test_a_step_no_better_than_chance_did_not_generalise(self) -> None:
        for accuracy, margin in ((0.5, 0.3), (0.75, -0.1), (0.0, 0.0)):
            selector = StepSelector(patience=2, max_kl=1.0)
            selector.observe(point(4, accuracy, margin))
            ok, reason = selector.generalised()
            with self.subTest(accuracy=accuracy, margin=margin):
                self.assertFalse(ok)
                self.assertIn("no validation gain: the best point (step 4)", reason)
        self.assertFalse(StepSelector(patience=2, max_kl=1.0).generalised()[0])


class DpoArgumentsTest(unittest.TestCase):
    def test_cpu_training_runs_in_fp32(self) -> None:
        # TRL's bf16 default on a CPU without native bf16 made every step about 10x slower.
        arguments = dpo_arguments(SETTINGS, PLAN, "/tmp/out", cuda=False, cuda_bf16=False)
        self.assertIs(arguments["bf16"], False)
        self.assertIs(arguments["use_cpu"], True)
        self.assertIs(arguments["activation_checkpointing"], False)

    def test_gpu_training_uses_bf16_where_the_card_has_it(self) -> None:
        self.assertIs(dpo_arguments(SETTINGS, PLAN, "/o", cuda=True, cuda_bf16=True)["bf16"], True)
        self.assertIs(dpo_arguments(SETTINGS, PLAN, "/o", cuda=True, cuda_bf16=False)["bf16"], False)
        self.assertIs(dpo_arguments(SETTINGS, PLAN, "/o", cuda=True, cuda_bf16=True)["use_cpu"], False)

    def test_carries_the_job_settings(self) -> None:
        arguments = dpo_arguments(SETTINGS, PLAN, "/tmp/out", cuda=False, cuda_bf16=False)
        expected: dict[str, object] = {"max_steps": 18, "per_device_train_batch_size": 2, "learning_rate": 5e-4}
        expected.update(beta=0.1)
        expected.update(max_length=256, eval_strategy="steps", eval_steps=3, save_strategy="no")
        expected.update(per_device_eval_batch_size=8, precompute_ref_log_probs=True)
        self.assertEqual({key: arguments[key] for key in expected}, expected)

    def test_precomputes_the_reference_only_for_a_run_that_sees_every_pair(self) -> None:
        short = plan_training(train_pairs=12, batch_size=2, epochs=3.0, max_steps=1, eval_every=None)
        arguments = dpo_arguments(SETTINGS, short, "/o", cuda=False, cuda_bf16=False)
        self.assertIs(arguments["precompute_ref_log_probs"], False)


class ManifestTest(unittest.TestCase):
    def test_builds_the_manifest_contract(self) -> None:
        settings = SETTINGS
        base = BaseModel(Path("/m/smollm2-135m-instruct.Q4_1.gguf"), "ab" * 32, Path("/c/hf-base/abab"))
        manifest = build_manifest(
            template="trl-dpo",
            dataset_id="ds-1",
            base=base,
            adapters=[Adapter("peft", Path("/o/adapter"), "11")],
            metrics={"steps": 4},
            hyperparameters=settings.as_manifest(),
            data={"trainPairs": 12, "validationPairs": 4},
            parent={"adapter": "/rl/jobs/1/adapter", "sha256": "22"},
            peak_rss_mb=2402.84,
            created_at=datetime(2026, 11, 25, 0, 22, 4, 107000, tzinfo=UTC),
        )
        self.assertEqual(manifest["template"], "trl-dpo")
        self.assertEqual(manifest["createdAt"], "2026-11-25T00:22:04.107Z")
        self.assertEqual(
            manifest["baseModel"],
            {
                "name": "smollm2-135m-instruct",
                "gguf": "/m/smollm2-135m-instruct.Q4_1.gguf",
                "ggufSha256": "ab" * 32,
                "hf": "/c/hf-base/abab",
            },
        )
        self.assertEqual(manifest["adapters"], [{"format": "peft", "path": "/o/adapter", "sha256": "11"}])
        self.assertEqual(manifest["hyperparameters"]["learningRate"], 5e-4)
        self.assertEqual(manifest["hyperparameters"]["loraAlpha"], 16)
        self.assertEqual(manifest["data"], {"trainPairs": 12, "validationPairs": 4})
        self.assertEqual(manifest["parent"], {"adapter": "/rl/jobs/1/adapter", "sha256": "22"})
        self.assertEqual(manifest["peakRssMb"], 2402.8)

    def test_writes_json_atomically(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "manifest.json"
            write_json_atomic(path, {"a": 1})
            self.assertEqual(json.loads(path.read_text()), {"a": 1})
            self.assertEqual(os.listdir(tmp), ["manifest.json"])

    def test_progress_lines_are_one_json_object_after_the_prefix(self) -> None:
        line = progress_line("train", step=3, of=8, loss=0.69)
        prefix, payload = line.split(" ", 1)
        self.assertEqual(prefix, "ECHOLOOP_PROGRESS")
        self.assertEqual(json.loads(payload), {"stage": "train", "step": 3, "of": 8, "loss": 0.69})


class BuildOnceTest(unittest.TestCase):
    def test_builds_once_and_discards_a_failed_build(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            target = Path(tmp) / "cache" / "thing"

            def fail(out: Path) -> None:
                (out / "half").write_text("x")
                raise RuntimeError("boom")

            with self.assertRaises(RuntimeError):
                build_once(target, fail)
            self.assertFalse(target.exists())
            self.assertFalse(Path(f"{target}.partial").exists())

            def succeed(out: Path) -> None:
                (out / "done").write_text("1")

            self.assertTrue(build_once(target, succeed))
            self.assertFalse(build_once(target, fail))
            self.assertEqual(os.listdir(target), ["done"])


class CliInputTest(unittest.TestCase):
    def run_cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PYTHONPATH": str(PYTHON_DIR)}
        command = [sys.executable, "-m", "echoloop_train.trl_dpo", *args]
        return subprocess.run(command, check=False, env=env, capture_output=True, text=True, timeout=60)

    def test_bad_input_exits_2_with_one_line_before_loading_torch(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            gguf = Path(tmp) / "base.gguf"
            gguf.write_bytes(b"GGUF")
            for sub in ("bad", "good"):
                (Path(tmp) / sub).mkdir()
            snapshot = write_snapshot(Path(tmp) / "bad", [json.dumps(row(rejected=[]))], [json.dumps(row())])
            unvalidated = write_snapshot(Path(tmp), [json.dumps(row())])
            good = write_snapshot(Path(tmp) / "good", [json.dumps(row())], [json.dumps(row())])
            output = Path(tmp) / "out"
            for args, message in (
                (["--snapshot", str(snapshot)], "line 1: rejected must be"),
                (["--snapshot", str(Path(tmp) / "none")], "train.jsonl does not exist"),
                (["--snapshot", str(unvalidated)], "validation.jsonl does not exist"),
                (["--snapshot", str(good), "--max-steps", "0"], "--max-steps must be at least 1"),
                (["--snapshot", str(good), "--max-kl", "0"], "--max-kl must be positive"),
                (["--snapshot", str(good), "--parent-adapter", tmp], "holds no adapter_model.safetensors"),
            ):
                with self.subTest(message):
                    result = self.run_cli(*args, "--output", str(output), "--dataset-id", "d", "--base-gguf", str(gguf))
                    self.assertEqual(result.returncode, 2)
                    self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
                    self.assertIn(message, result.stderr)
                    self.assertEqual(result.stdout, "")
            self.assertFalse(output.exists())


if __name__ == "__main__":
    unittest.main()
