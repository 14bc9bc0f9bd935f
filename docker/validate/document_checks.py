"""The checks on the file as a whole: YAML, interpolation, where secrets come from, the Compose Specification schema."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from check_report import check, fail, ok
from compose_interpolation import interpolate_tree, read_env_file
from compose_model import env_map
from ruamel.yaml import YAML

SECRET_KEY = re.compile(r"(PASSWORD|PASSWD|SECRET|API_KEY|TOKEN|CREDENTIAL|PRIVATE_KEY)", re.I)
SAFE_SECRET_VALUE = re.compile(r"^\$\{[A-Za-z_][A-Za-z0-9_]*(?::\?[^}]*|\?[^}]*|:-|-)?\}$")


def plain(node: Any) -> Any:
    """ruamel's CommentedMap/Seq (merge keys resolved) -> dict/list."""
    if isinstance(node, dict):
        return {str(k): plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    return node


def load_compose_yaml(compose_path: Path) -> dict[str, Any] | None:
    """The file as plain data, or None (reported) when it is not YAML with a `services` mapping."""
    yaml = YAML(typ="safe", pure=True)
    try:
        raw_doc = plain(yaml.load(compose_path.read_text(encoding="utf-8")))
    except Exception as error:  # noqa: BLE001 - any parse error is the finding
        fail("yaml", f"{compose_path}: {error}".replace("\n", " "))
        return None
    if not isinstance(raw_doc, dict) or not isinstance(raw_doc.get("services"), dict):
        fail("yaml", "no top-level `services` mapping")
        return None
    ok(f"yaml ({compose_path.name}, {len(raw_doc['services'])} services)")
    return raw_doc


def check_interpolation(raw_doc: dict[str, Any], env_file: Path | None) -> Any:
    """The file interpolated with the env file's variables only; a value that fails to interpolate stays as written."""
    env = read_env_file(env_file)
    errors: list[str] = []
    doc = interpolate_tree(raw_doc, env, "", errors)
    check(f"interpolation (env file: {env_file.name if env_file else 'none'})", errors)
    return doc


def check_secrets_from_required_variables(raw_doc: dict[str, Any]) -> None:
    # Secrets must come from variables that have no default (or an empty one), never from the file.
    problems = []
    for name, svc in raw_doc["services"].items():
        for key, value in env_map(svc).items():
            if SECRET_KEY.search(key) and not SAFE_SECRET_VALUE.match(value):
                problems.append(
                    f"{name}.environment.{key} must be ${{VAR:?message}} (or ${{VAR:-}} when optional), not {value!r}"
                )
    # Interpolating with no variables at all names every required one.
    empty_errors: list[str] = []
    interpolate_tree(raw_doc, {}, "", empty_errors)
    required_without_env = sorted(
        {m.group(1) for e in empty_errors for m in [re.match(r"required variable (\w+)", e)] if m}
    )
    if not required_without_env:
        problems.append("no variable is required (${VAR:?...}): secrets would silently be empty or defaulted")
    check(f"secrets come from required variables ({', '.join(required_without_env) or 'none'})", problems)


def check_against_compose_spec(doc: Any, schema_path: Path) -> None:
    try:
        from jsonschema import Draft202012Validator
        from referencing import Registry, Resource

        schema = json.loads(schema_path.read_text(encoding="utf-8"))
        validator_cls = Draft202012Validator
        resource = Resource.from_contents(schema)
        validator = validator_cls(schema, registry=Registry().with_resource(schema.get("$id", ""), resource))
        schema_errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        check(
            "compose-spec schema",
            [f"{'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}" for e in schema_errors[:10]],
        )
    except Exception as error:  # noqa: BLE001
        fail("compose-spec schema", f"could not run the validator: {error}")
