"""The env file and Compose interpolation: ${VAR}, ${VAR:-d}, ${VAR-d}, ${VAR:?e}, ${VAR?e}, ${VAR:+r}, ${VAR+r}, $$.

https://github.com/compose-spec/compose-spec/blob/main/spec.md#interpolation
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any


def read_env_file(path: Path | None) -> dict[str, str]:
    env: dict[str, str] = {}
    if path is None:
        return env
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        key, sep, value = line.partition("=")
        if not sep:
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        else:
            value = re.sub(r"\s+#.*$", "", value)
        env[key.strip()] = value
    return env


class InterpolationError(Exception):
    pass


NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def interpolate(text: str, env: dict[str, str], where: str) -> str:
    out, _ = _interp(text, 0, env, where, stop_at_brace=False)
    return out


def _interp(text: str, i: int, env: dict[str, str], where: str, stop_at_brace: bool) -> tuple[str, int]:
    out: list[str] = []
    while i < len(text):
        c = text[i]
        if stop_at_brace and c == "}":
            return "".join(out), i
        if c != "$":
            out.append(c)
            i += 1
            continue
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if nxt == "$":
            out.append("$")
            i += 2
        elif nxt == "{":
            value, i = _braced(text, i + 2, env, where)
            out.append(value)
        else:
            m = NAME.match(text, i + 1)
            if not m:
                raise InterpolationError(f"{where}: invalid '$' (write $$ for a literal dollar)")
            out.append(env.get(m.group(0), ""))
            i = m.end()
    if stop_at_brace:
        raise InterpolationError(f"{where}: unterminated ${{...}}")
    return "".join(out), i


def _braced(text: str, i: int, env: dict[str, str], where: str) -> tuple[str, int]:
    m = NAME.match(text, i)
    if not m:
        raise InterpolationError(f"{where}: invalid variable name in ${{...}}")
    name, i = m.group(0), m.end()
    if i < len(text) and text[i] == "}":
        return env.get(name, ""), i + 1
    op = ""
    for candidate in (":-", ":?", ":+", "-", "?", "+"):
        if text.startswith(candidate, i):
            op = candidate
            break
    if not op:
        raise InterpolationError(f"{where}: invalid ${{{name}...}} expression")
    arg, i = _interp(text, i + len(op), env, where, stop_at_brace=True)
    i += 1  # the closing brace
    is_set = name in env
    non_empty = is_set and env[name] != ""
    if op == ":-":
        return (env[name] if non_empty else arg), i
    if op == "-":
        return (env[name] if is_set else arg), i
    if op == ":?":
        if not non_empty:
            raise InterpolationError(f"required variable {name} is missing a value: {arg}")
        return env[name], i
    if op == "?":
        if not is_set:
            raise InterpolationError(f"required variable {name} is missing a value: {arg}")
        return env[name], i
    if op == ":+":
        return (arg if non_empty else ""), i
    return (arg if is_set else ""), i  # "+"


def interpolate_tree(node: Any, env: dict[str, str], path: str, errors: list[str]) -> Any:
    if isinstance(node, dict):
        return {k: interpolate_tree(v, env, f"{path}.{k}", errors) for k, v in node.items()}
    if isinstance(node, list):
        return [interpolate_tree(v, env, f"{path}[{n}]", errors) for n, v in enumerate(node)]
    if isinstance(node, str):
        try:
            return interpolate(node, env, path)
        except InterpolationError as error:
            errors.append(str(error))
            return node
    return node
