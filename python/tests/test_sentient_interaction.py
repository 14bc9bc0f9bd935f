"""The VeRL interaction against the real eval-runner (started by test/eval/simulator-sessions.int-spec.ts, whose
scripted simulator warms the first training profile by 10 a turn and cools the second by 10)."""

import asyncio
import os
import unittest

from echoloop_verl import SentientUserInteraction, SimulatorError

PROFILES = os.environ.get("ECHOLOOP_TEST_PROFILES", "")
WARMING, COOLING, BENCHMARK = PROFILES.split(",") if PROFILES else ("", "", "")


def conversation(opener: str, replies: list[str]) -> list[dict[str, str]]:
    messages = [{"role": "system", "content": "You are Echo."}, {"role": "user", "content": opener}]
    for reply in replies:
        messages.append({"role": "assistant", "content": reply})
    return messages


async def rollout(interaction: SentientUserInteraction, profile_id: str) -> tuple[list[float], list[str], float]:
    instance = await interaction.start_interaction(profile_id=profile_id)
    messages = conversation(interaction.opener(instance), [])
    scores: list[float] = []
    users: list[str] = []
    for turn in range(20):
        messages.append({"role": "assistant", "content": f"<think>plan {turn}</think>reply {turn}"})
        done, user, score, meta = await interaction.generate_response(instance, messages)
        scores.append(score)
        users.append(user)
        messages.append({"role": "user", "content": user})
        if done:
            break
    reward = await interaction.calculate_score(instance)
    await interaction.finalize_interaction(instance)
    return scores, users, reward


@unittest.skipUnless(PROFILES, "ECHOLOOP_TEST_PROFILES unset: run from test/eval/simulator-sessions.int-spec.ts")
class SentientUserInteractionTest(unittest.IsolatedAsyncioTestCase):
    def setUp(self) -> None:
        self.interaction = SentientUserInteraction({"name": "sentient_user"})

    async def test_a_rollout_gets_emo_over_100_per_turn_and_stops_at_100(self) -> None:
        scores, users, reward = await rollout(self.interaction, WARMING)
        # RLVER training starts at 30: +10 a turn reaches 100 after 7 replies.
        self.assertEqual(scores, [0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
        self.assertEqual(set(users), {"mm, go on"})
        self.assertEqual(reward, 1.0)

    async def test_two_rollouts_at_once_stay_separate(self) -> None:
        (warm, _, warm_reward), (cool, _, cool_reward) = await asyncio.gather(
            rollout(self.interaction, WARMING), rollout(self.interaction, COOLING)
        )
        self.assertEqual(warm[-1], 1.0)
        # 30 → 20 → 10 → 0: below 10 the user is gone, and the sparse reward is max(0/100, 0).
        self.assertEqual(cool, [0.2, 0.1, 0.0])
        self.assertEqual((warm_reward, cool_reward), (1.0, 0.0))

    async def test_benchmark_profiles_are_never_served_for_training(self) -> None:
        with self.assertRaises(SimulatorError) as raised:
            await self.interaction.start_interaction(profile_id=BENCHMARK)
        self.assertEqual((raised.exception.status, raised.exception.code), (422, "benchmark_profile"))

    async def test_a_reply_after_the_end_terminates_without_another_turn(self) -> None:
        instance = await self.interaction.start_interaction(profile_id=COOLING, max_turns=1)
        messages = conversation(self.interaction.opener(instance), ["hello"])
        done, _, score, meta = await self.interaction.generate_response(instance, messages)
        self.assertEqual((done, score, meta["end_reason"]), (True, 0.2, "max_turns"))
        again = await self.interaction.generate_response(instance, messages + [{"role": "assistant", "content": "?"}])
        self.assertEqual(again[:3], (True, "", 0.2))


if __name__ == "__main__":
    unittest.main()
