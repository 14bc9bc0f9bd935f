"""The VeRL reward function against the real reward labeller (started by test/rl/verl-grpo.int-spec.ts, whose fake
judge gives empathy "4" and humanlike "humanlike" by default, empathy "1" and "robotic" to a reply saying
"whatever", and "tie" against the reference "You worked so hard"). Without ECHOLOOP_LABELLER_URL only the offline
tests run."""

import json
import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from echoloop_verl.reward_fn import (
    RewardScoreError,
    composites,
    compute_score,
    compute_score_batch,
    reply_item,
    split_reply,
)

LIVE = os.environ.get("ECHOLOOP_LABELLER_URL")
HISTORY = {"history": [{"role": "user", "content": "I failed my driving test again today."}]}
WARM = "Oh no, that is so frustrating. What happened?"
COLD = "whatever, tests are easy."
# The composite's default weights (libs/rewards/src/config.ts): empathy 0.35, humanlike 0.25, renormalised.
EMPATHETIC = (0.35 * 0.75 + 0.25 * 1) / 0.6


class SplitReplyTest(unittest.TestCase):
    def test_reads_the_shared_cases_as_the_typescript_vocabulary_does(self) -> None:
        cases = Path(__file__).resolve().parents[2] / "libs/vocabulary/src/think-cases.json"
        for case in json.loads(cases.read_text(encoding="utf-8")):
            with self.subTest(output=case["output"]):
                self.assertEqual(split_reply(case["output"])[0], case["reply"])

    def test_think_blocks_are_sent_apart_from_the_reply(self) -> None:
        self.assertEqual(split_reply("<think>plan</think>\n\nHello"), ("Hello", "plan"))
        # The chat template put `<think>` in the prompt: the response starts mid-thought.
        self.assertEqual(split_reply("plan it</think>Hi"), ("Hi", "plan it"))
        self.assertEqual(split_reply("<think>cut off"), ("", "cut off"))
        self.assertEqual(split_reply(" plain "), ("plain", None))
        # Only the first reply counts when the decoded response kept the chat template's markers.
        self.assertEqual(split_reply("First.<|im_end|>\n<|im_start|>user\nmore"), ("First.", None))

    def test_a_row_without_history_is_refused_before_any_call(self) -> None:
        with self.assertRaisesRegex(ValueError, "extra_info.history is missing"):
            compute_score("echoloop_live", "hi", "", {})
        with self.assertRaisesRegex(ValueError, "must end with the user message"):
            compute_score("echoloop_live", "hi", "", {"history": [{"role": "assistant", "content": "x"}]})

    def test_an_unreachable_labeller_raises_after_its_retries(self) -> None:
        env = {"ECHOLOOP_LABELLER_URL": "http://127.0.0.1:9", "ECHOLOOP_LABELLER_RETRIES": "1"}
        with mock.patch.dict(os.environ, env), self.assertRaises(RewardScoreError) as raised:
            compute_score("echoloop_live", WARM, "", HISTORY)
        self.assertEqual((raised.exception.status, raised.exception.code), (0, "unreachable"))


@unittest.skipUnless(LIVE, "ECHOLOOP_LABELLER_URL unset: live labeller tests run from test/rl/verl-grpo.int-spec.ts")
class LiveLabellerRewardTest(unittest.TestCase):
    def test_an_empathetic_reply_scores_the_composite_and_a_cold_one_scores_0(self) -> None:
        warm = compute_score("echoloop_live", WARM, "", HISTORY)
        self.assertIsInstance(warm, float)
        self.assertAlmostEqual(warm, EMPATHETIC)
        self.assertEqual(compute_score("echoloop_live", COLD, "", HISTORY), 0.0)

    def test_think_text_is_reasoning_and_malformed_think_markup_fails_the_process_gate(self) -> None:
        self.assertAlmostEqual(compute_score("echoloop_live", f"<think>be kind</think>{WARM}", "", HISTORY), EMPATHETIC)
        # Cut off mid-thought: no reply, R_process = 0 zeroes the empathy; the humanlike judge still answers.
        self.assertLess(compute_score("echoloop_live", "<think>still thinking", "", HISTORY), EMPATHETIC)

    def test_the_reference_reply_makes_the_empathy_judge_compare(self) -> None:
        score = compute_score("echoloop_live", WARM, "That is rough. You worked so hard for it.", HISTORY)
        self.assertAlmostEqual(score, (0.35 * 0.5 + 0.25 * 1) / 0.6)

    def test_a_batch_scores_each_reply_in_order_across_labeller_requests(self) -> None:
        replies = [WARM, COLD] * 20  # 40 replies: two requests of at most 32
        scores = compute_score_batch(["echoloop_live"] * 40, replies, [""] * 40, [HISTORY] * 40)
        self.assertEqual(len(scores), 40)
        for reply, score in zip(replies, scores, strict=True):
            self.assertAlmostEqual(score, EMPATHETIC if reply == WARM else 0.0)
        self.assertTrue(all(0.0 <= s <= 1.0 for s in scores))
        self.assertEqual(compute_score_batch([], [], [], []), [])

    def test_the_key_may_come_from_a_file_and_replies_are_scored_as_training_items(self) -> None:
        key = os.environ.get("ECHOLOOP_LABELLER_KEY", "")
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "key"
            path.write_text(key + "\n")
            env = {"ECHOLOOP_LABELLER_KEY": "el_not-a-key", "ECHOLOOP_LABELLER_KEY_FILE": str(path)}
            with mock.patch.dict(os.environ, env):
                items = [reply_item(HISTORY["history"], reply) for reply in (WARM, COLD)]
                scores = composites(items)
        self.assertAlmostEqual(scores[0] or 0.0, EMPATHETIC)
        self.assertEqual(scores[1], 0.0)

    def test_a_bad_key_raises_a_clear_error_without_retrying(self) -> None:
        with (
            mock.patch.dict(os.environ, {"ECHOLOOP_LABELLER_KEY": "el_not-a-key"}),
            self.assertRaises(RewardScoreError) as raised,
        ):
            compute_score("echoloop_live", WARM, "", HISTORY)
        self.assertEqual(raised.exception.status, 401)
        self.assertIn("reward labeller: 401", str(raised.exception))


if __name__ == "__main__":
    unittest.main()
