"""The trl-grpo template's pure parts (no torch): prompts from a `verl` snapshot, the selection by validation
reward against the parent's own, TRL's GRPO arguments, and the CLI's input checks before the training stack loads."""

import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from echoloop_train.grpo import GrpoSettings, grpo_arguments
from echoloop_train.metrics import GRPO_LOG_KEYS, GRPO_VALIDATION_KEYS, metric_record, validation_record
from echoloop_train.rows import InvalidInput, load_prompts, to_prompt
from echoloop_train.selection import RewardObjective, StepSelector, plan_training
from echoloop_train.trl_grpo import labeller_reward, openers, sentient_reward

PYTHON_DIR = Path(__file__).resolve().parents[1]
PROFILES = PYTHON_DIR.parent / "data" / "sentient" / "profiles.jsonl"
SYSTEM = {"role": "system", "content": "You are Mira."}
USER = {"role": "user", "content": "I feel so alone since I moved here."}


def verl_row(**overrides: object) -> dict[str, object]:
    return {
        "data_source": "echoloop_live",
        "prompt": [SYSTEM, USER],
        "ability": "empathy",
        "reward_model": {"style": "model", "ground_truth": "That sounds lonely."},
        "extra_info": {"split": "train", "index": 0, "turn_id": "t", "user": "u", "interaction_kwargs": {}},
        **overrides,
    }


SETTINGS = GrpoSettings(
    max_steps=4,
    epochs=1.0,
    patience=2,
    max_kl=1.0,
    eval_every=2,
    batch_size=2,
    num_generations=4,
    max_completion_length=32,
    learning_rate=5e-3,
    beta=0.0,
    temperature=1.0,
    sentient_turns=3,
    lora_r=8,
    lora_alpha=16,
    seed=0,
    threads=1,
)


def reward_point(step: int, reward: float | None, kl: float | None = 0.1) -> dict[str, object]:
    return {"step": step, "valReward": reward, "klToParent": kl}


class PromptRowsTest(unittest.TestCase):
    def test_keeps_the_chat_up_to_the_user_message_and_drops_the_rest(self) -> None:
        self.assertEqual(to_prompt(verl_row()), {"prompt": [SYSTEM, USER]})

    def test_a_prompt_must_end_with_what_the_policy_answers(self) -> None:
        answered = [SYSTEM, USER, {"role": "assistant", "content": "Hi."}]
        for row, message in (
            (verl_row(prompt=answered), "must end with the user message"),
            (verl_row(prompt=[]), "prompt must be a non-empty list"),
            ("text", "a row must be a JSON object"),
        ):
            with self.subTest(message), self.assertRaises(InvalidInput) as caught:
                to_prompt(row)
            self.assertIn(message, str(caught.exception))

    def test_an_empty_file_holds_no_prompts(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "train.jsonl"
            path.write_text("\n")
            with self.assertRaises(InvalidInput) as caught:
                load_prompts(path)
            self.assertIn("holds no prompts", str(caught.exception))


class RewardSourcesTest(unittest.TestCase):
    def test_only_the_training_pools_openers_become_prompts(self) -> None:
        rows = openers(PROFILES)
        pools = {json.loads(line)["id"]: json.loads(line)["pool"] for line in PROFILES.read_text().splitlines() if line}
        self.assertGreater(len(rows), 0)
        self.assertEqual({pools[row["profile"]] for row in rows}, {"train"})
        for row in rows:
            self.assertEqual([m["role"] for m in row["prompt"]], ["user"])

    def test_the_labeller_scores_chats_only(self) -> None:
        # Nothing to send: every reply answers a profile's opener, which the simulator scores.
        self.assertEqual(labeller_reward([[USER]], ["Hi."], ["p1"]), [None])


class ScriptedSimulator:
    """The eval-runner's simulator sessions as a script: each reply moves the user by +10 when it is warm ("sorry"),
    -10 otherwise; the user leaves at `max_turns`, or says nothing the simulator can read once a reply says "boom"."""

    def __init__(self) -> None:
        self.sessions: dict[str, dict] = {}
        self.replies: list[tuple[str, int, str]] = []

    def open(self, profile_id: str, start_score: int | None = None, max_turns: int | None = None) -> dict:
        sid = f"s{len(self.sessions)}"
        self.sessions[sid] = {"id": sid, "score": 50, "turns": 0, "max": max_turns, "profile": profile_id}
        return self.view(sid, done=False, end=None)

    def reply(self, session_id: str, reply: str, turn: int) -> dict:
        session = self.sessions[session_id]
        assert turn == session["turns"] + 1, "a turn is never skipped nor taken twice"
        self.replies.append((session["profile"], turn, reply))
        session["turns"] = turn
        if "boom" in reply:
            return self.view(session_id, done=True, end="error")
        session["score"] += 10 if "sorry" in reply.lower() else -10
        done = turn == session["max"]
        return self.view(session_id, done=done, end="max_turns" if done else None)

    def view(self, sid: str, *, done: bool, end: str | None) -> dict:
        session = self.sessions[sid]
        return {
            "id": sid,
            "turns": session["turns"],
            "done": done,
            "endReason": end,
            "userMessage": f"user message {session['turns'] + 1}",
            "reward": max(session["score"] / 100, 0),
        }


class MultiTurnSentientRewardTest(unittest.TestCase):
    def test_a_reply_is_worth_where_the_conversation_it_starts_ends(self) -> None:
        simulator = ScriptedSimulator()
        seen: list[list[dict]] = []

        def policy(chats: list[list[dict]]) -> list[str]:
            seen.extend(chats)
            return ["I am sorry, tell me more." for _ in chats]

        reward = sentient_reward(simulator, 3)(policy)  # type: ignore[arg-type]
        opener = [{"role": "user", "content": "hi"}]
        scores = reward(
            [opener, [USER], opener, opener],
            ["Sorry to hear that.", "That sounds hard.", "Whatever.", "  "],
            ["p1", None, "p1", "p1"],
        )
        # Warm first reply then two warm policy replies: 50+30; cold first reply: 50-10+20; empty: nothing to send.
        self.assertEqual(scores, [0.8, None, 0.6, 0.0])
        self.assertEqual(sorted(turn for _, turn, _ in simulator.replies), [1, 1, 2, 2, 3, 3])
        # The policy answered the whole conversation so far, ending with the simulated user's latest message.
        self.assertEqual([m["content"] for m in seen[0]], ["hi", "Sorry to hear that.", "user message 2"])
        self.assertEqual([m["role"] for m in seen[-1]], ["user", "assistant", "user", "assistant", "user"])

    def test_one_turn_asks_the_policy_nothing_and_a_broken_session_is_left_out(self) -> None:
        simulator = ScriptedSimulator()

        def policy(chats: list[list[dict]]) -> list[str]:
            raise AssertionError("one turn: only the scored reply is played")

        scores = sentient_reward(simulator, 1)(policy)(  # type: ignore[arg-type]
            [[USER], [USER]], ["boom", "So sorry."], ["p1", "p2"]
        )
        self.assertEqual(scores, [None, 0.6])


class RewardSelectionTest(unittest.TestCase):
    def selector(self, patience: int = 2, max_kl: float = 1.0) -> StepSelector:
        return StepSelector(patience=patience, max_kl=max_kl, objective=RewardObjective())

    def test_a_step_above_the_parents_reward_is_kept(self) -> None:
        selector = self.selector()
        selector.observe(reward_point(0, 0.25, kl=0.0))
        self.assertTrue(selector.observe(reward_point(2, 0.5)))
        self.assertFalse(selector.observe(reward_point(4, 0.4)))
        summary = selector.summary()
        self.assertEqual((summary["generalised"], summary["step"], summary["valReward"]), (True, 2, 0.5))
        self.assertIn("the parent's 0.2500", summary["reason"])

    def test_no_step_above_the_parent_ships_nothing(self) -> None:
        selector = self.selector()
        selector.observe(reward_point(0, 0.5, kl=0.0))
        selector.observe(reward_point(2, 0.5))
        selector.observe(reward_point(4, 0.25))
        self.assertTrue(selector.should_stop)
        ok, reason = selector.generalised()
        self.assertFalse(ok)
        self.assertIn("no step's reward is above the parent's 0.5000", reason)

    def test_without_the_parents_reward_nothing_counts_as_learnt(self) -> None:
        selector = self.selector()
        selector.observe(reward_point(2, 0.9))
        self.assertEqual(selector.generalised(), (False, "the parent's validation reward (step 0) was not measured"))

    def test_a_better_reward_beyond_the_trust_region_is_never_kept(self) -> None:
        selector = self.selector(max_kl=0.5)
        selector.observe(reward_point(0, 0.25, kl=0.0))
        self.assertFalse(selector.observe(reward_point(2, 1.0, kl=0.9)))
        self.assertEqual(selector.summary()["stoppedBy"], "kl_budget")
        self.assertFalse(selector.generalised()[0])


class GrpoMetricsTest(unittest.TestCase):
    def test_trl_grpo_logs_become_records(self) -> None:
        logs = {"loss": -0.04, "reward": 0.25, "reward_std": 0.46, "frac_reward_zero_std": 0.5, "epoch": 0.5}
        record = metric_record(2, logs, 3.0, GRPO_LOG_KEYS)
        assert record is not None
        self.assertEqual((record["reward"], record["rewardStd"], record["zeroStdShare"]), (0.25, 0.46, 0.5))
        point = validation_record(
            2, {"eval_reward": 0.5, "eval_reward_std": float("nan")}, 0.01, 4.0, GRPO_VALIDATION_KEYS
        )
        self.assertEqual((point["valReward"], point["valRewardStd"], point["klToParent"]), (0.5, None, 0.01))


class GrpoArgumentsTest(unittest.TestCase):
    def test_a_step_holds_whole_groups_and_cpu_runs_in_fp32(self) -> None:
        plan = plan_training(8, SETTINGS.batch_size, SETTINGS.epochs, SETTINGS.max_steps, SETTINGS.eval_every)
        arguments = grpo_arguments(SETTINGS, plan, "/tmp/out", cuda=False, cuda_bf16=False)
        # TRL counts completions: two prompts, four replies each.
        self.assertEqual(arguments["per_device_train_batch_size"], 8)
        self.assertEqual(arguments["num_generations"], 4)
        self.assertEqual((arguments["max_steps"], arguments["eval_steps"]), (4, 2))
        self.assertIs(arguments["bf16"], False)
        self.assertIs(arguments["use_cpu"], True)
        self.assertIs(grpo_arguments(SETTINGS, plan, "/o", cuda=True, cuda_bf16=True)["bf16"], True)


class GrpoCliInputTest(unittest.TestCase):
    def run_cli(self, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
        full = {**os.environ, "PYTHONPATH": str(PYTHON_DIR), **env}
        command = [sys.executable, "-m", "echoloop_train.trl_grpo", *args]
        return subprocess.run(command, check=False, env=full, capture_output=True, text=True, timeout=60)

    def test_bad_input_exits_2_with_one_line_before_loading_torch(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            gguf = Path(tmp) / "base.gguf"
            gguf.write_bytes(b"GGUF")
            good = Path(tmp) / "good"
            good.mkdir()
            for name in ("train.jsonl", "validation.jsonl"):
                (good / name).write_text(json.dumps(verl_row()) + "\n")
            bad = Path(tmp) / "bad"
            bad.mkdir()
            (bad / "train.jsonl").write_text(json.dumps(verl_row(prompt=[SYSTEM])) + "\n")
            labeller = {"ECHOLOOP_LABELLER_URL": "http://127.0.0.1:1"}
            output = Path(tmp) / "out"
            for env, args, message in (
                (labeller, ["--snapshot", str(bad)], "line 1: prompt must end with the user message"),
                (labeller, ["--snapshot", str(good), "--num-generations", "1"], "--num-generations must be at least 2"),
                (labeller, ["--snapshot", str(good), "--sentient-turns", "0"], "--sentient-turns must be from 1 to 45"),
                ({"ECHOLOOP_LABELLER_URL": ""}, ["--snapshot", str(good)], "ECHOLOOP_LABELLER_URL is not set"),
                (
                    {**labeller, "ECHOLOOP_LABELLER_KEY_FILE": str(Path(tmp) / "none")},
                    ["--snapshot", str(good)],
                    "ECHOLOOP_LABELLER_KEY_FILE",
                ),
                (
                    {**labeller, "ECHOLOOP_SIMULATOR_URL": ""},
                    ["--snapshot", str(good), "--profiles", str(PROFILES)],
                    "ECHOLOOP_SIMULATOR_URL is not set",
                ),
                (
                    {**labeller, "ECHOLOOP_SIMULATOR_URL": "http://127.0.0.1:1"},
                    ["--snapshot", str(good), "--profiles", str(Path(tmp) / "none.jsonl")],
                    "profiles file",
                ),
            ):
                with self.subTest(message):
                    result = self.run_cli(
                        env, *args, "--output", str(output), "--dataset-id", "d", "--base-gguf", str(gguf)
                    )
                    self.assertEqual(result.returncode, 2)
                    self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
                    self.assertIn(message, result.stderr)
            self.assertFalse(output.exists())


if __name__ == "__main__":
    unittest.main()
