"""Reading a service of the (interpolated) compose model, whichever of its allowed shapes a key takes."""

from __future__ import annotations

from typing import Any


def env_map(service: dict[str, Any]) -> dict[str, str]:
    raw = service.get("environment") or {}
    if isinstance(raw, list):
        out = {}
        for item in raw:
            key, sep, value = str(item).partition("=")
            out[key] = value if sep else ""
        return out
    return {str(k): "" if v is None else (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in raw.items()}


def command_list(service: dict[str, Any], key: str = "command") -> list[str]:
    raw = service.get(key)
    if raw is None:
        return []
    if isinstance(raw, str):
        return raw.split()
    return [str(x) for x in raw]


def flag_values(args: list[str], flag: str) -> list[str]:
    values = []
    for n, arg in enumerate(args):
        if arg == flag and n + 1 < len(args):
            values.append(args[n + 1])
        elif arg.startswith(flag + "="):
            values.append(arg[len(flag) + 1 :])
    return values


def depends_map(service: dict[str, Any]) -> dict[str, dict[str, Any]]:
    raw = service.get("depends_on") or {}
    if isinstance(raw, list):
        return {str(name): {"condition": "service_started"} for name in raw}
    return {str(k): (v or {}) for k, v in raw.items()}


def services_with_image(services: dict[str, dict[str, Any]], prefix: str) -> list[str]:
    return [n for n, s in services.items() if str(s.get("image", "")).startswith(prefix)]


def is_loopback(host: str | None) -> bool:
    return host in {"localhost", "127.0.0.1", "::1", "0.0.0.0"} or bool(host and host.startswith("127."))
