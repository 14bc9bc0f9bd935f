"""A small HTTP client for the eval-runner's simulator sessions (standard library only)."""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.request
from typing import Any


class SimulatorError(RuntimeError):
    """The simulator refused a call: `status` and `code` come from its JSON error body."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code


class SimulatorClient:
    """Opens sessions and sends the policy's replies. Outages (503, connection errors, timeouts) are retried with
    backoff: the service leaves a session untouched when its model is down, and replies carry their turn number, so
    a retried turn is never taken twice."""

    # 5xx a retry can cure: the model or the database away for a moment, a proxy in between.
    RETRY_STATUSES = frozenset({500, 502, 503, 504})

    def __init__(self, base_url: str, api_key: str, timeout_s: float = 600.0, retries: int = 4) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout_s = timeout_s
        self.retries = retries

    def open(self, profile_id: str, start_score: int | None = None, max_turns: int | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"profileId": profile_id}
        if start_score is not None:
            body["startScore"] = start_score
        if max_turns is not None:
            body["maxTurns"] = max_turns
        return self._call("POST", "/v1/simulator/sessions", body)

    def reply(self, session_id: str, reply: str, turn: int) -> dict[str, Any]:
        # The turn number makes a retry idempotent: if the first try was taken but its answer lost (a timeout), the
        # service answers the retry with that same turn instead of taking a second one.
        body = {"reply": reply, "turn": turn}
        return self._call("POST", f"/v1/simulator/sessions/{session_id}/turns", body)

    def get(self, session_id: str) -> dict[str, Any]:
        return self._call("GET", f"/v1/simulator/sessions/{session_id}")

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode()
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(
                self.base_url + path,
                data=data,
                method=method,
                headers={"content-type": "application/json", "x-api-key": self.api_key},
            )
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                    return json.loads(response.read())
            except urllib.error.HTTPError as error:
                status, code, message = error.code, "http_error", error.reason
                try:
                    detail = json.loads(error.read()).get("error", {})
                    code, message = detail.get("code", code), detail.get("message", message)
                except (ValueError, AttributeError):
                    pass
                # The service's own 502 (JSON code bad_gateway) is a refused model call, such as a wrong key or model
                # name: retrying cannot help. A proxy's 502 has no such body and is retried.
                retry = status in self.RETRY_STATUSES and code != "bad_gateway"
                if not retry or attempt == self.retries:
                    raise SimulatorError(status, code, str(message)) from None
            except (urllib.error.URLError, TimeoutError, ConnectionError, http.client.HTTPException) as error:
                if attempt == self.retries:
                    reason = getattr(error, "reason", error)
                    raise SimulatorError(0, "unreachable", str(reason)) from None
            time.sleep(min(0.5 * 2**attempt, 8.0))
        raise AssertionError("unreachable")
