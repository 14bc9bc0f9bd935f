"""The official OpenAI Python SDK as a client of the gateway's OpenAI-compatible endpoint (started by
test/openai/chat-completions.int-spec.ts, whose scripted model answers every reply with ECHOLOOP_OPENAI_REPLY)."""

import os
import unittest

import openai
from openai.types.chat import ChatCompletionMessageParam

BASE_URL = os.environ.get("ECHOLOOP_OPENAI_BASE_URL", "")
KEY = os.environ.get("ECHOLOOP_OPENAI_KEY", "")
REPLY = os.environ.get("ECHOLOOP_OPENAI_REPLY", "")
SYSTEM = "You are Juniper, a calm lighthouse keeper."


@unittest.skipUnless(BASE_URL, "ECHOLOOP_OPENAI_BASE_URL unset: run from test/openai/chat-completions.int-spec.ts")
class OpenAiPythonClientTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = openai.OpenAI(api_key=KEY, base_url=BASE_URL, max_retries=0)

    def test_lists_the_characters_as_models(self) -> None:
        ids = [model.id for model in self.client.models.list()]
        self.assertEqual(ids[0], "default")
        self.assertGreater(len(ids), 1)

    def test_answers_whole_then_streamed_then_as_a_swipe(self) -> None:
        opener: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": "Python says hello."},
        ]
        whole = self.client.chat.completions.create(model="default", messages=opener)
        self.assertEqual(whole.choices[0].message.content, REPLY)
        self.assertEqual(whole.choices[0].finish_reason, "stop")
        assert whole.usage is not None
        self.assertGreater(whole.usage.completion_tokens, 0)

        history: list[ChatCompletionMessageParam] = [
            *opener,
            {"role": "assistant", "content": REPLY},
            {"role": "user", "content": "And again."},
        ]
        stream = self.client.chat.completions.create(
            model="default", messages=history, stream=True, stream_options={"include_usage": True}
        )
        text, usage, ids = "", None, set[str]()
        for chunk in stream:
            ids.add(chunk.id)
            if chunk.choices:
                text += chunk.choices[0].delta.content or ""
            usage = chunk.usage or usage
        self.assertEqual(text, REPLY)
        self.assertEqual(len(ids), 1)
        assert usage is not None
        self.assertGreater(usage.prompt_tokens, 0)

        # The same request again is a new alternative of its answer: another reply id.
        swipe = self.client.chat.completions.create(model="default", messages=history)
        self.assertNotIn(swipe.id, ids)

    def test_errors_are_the_sdk_errors(self) -> None:
        bad = openai.OpenAI(api_key="elp_not-a-key", base_url=BASE_URL, max_retries=0)
        with self.assertRaises(openai.AuthenticationError) as refused:
            bad.chat.completions.create(model="default", messages=[{"role": "user", "content": "hi"}])
        self.assertEqual(refused.exception.code, "invalid_api_key")
        with self.assertRaises(openai.NotFoundError):
            self.client.chat.completions.create(model="nobody", messages=[{"role": "user", "content": "hi"}])
        with self.assertRaises(openai.BadRequestError):
            self.client.chat.completions.create(model="default", messages=[{"role": "assistant", "content": "hi"}])
