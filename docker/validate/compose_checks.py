#!/usr/bin/env python3
"""Checks docker/compose.yml without a Docker engine. Called by tools/ci/validate-compose.sh.

1. YAML, then the Compose interpolation rules (${VAR}, ${VAR:-d}, ${VAR-d}, ${VAR:?e}, ${VAR?e},
   ${VAR:+r}, ${VAR+r}, $$), with the variables of one env file only (no shell leakage).
2. The result against the Compose Specification JSON schema (vendored by check-jsonschema).
3. What the schema can't know: build args naming real apps, references between services, pinned
   images, secrets never written in the file, the app environments (handed to check-app-env.cjs,
   which asks each app's own zod schema), vLLM LoRA flags, Kafka/PostgreSQL/vLLM wiring, the
   Dockerfile's .dockerignore.

Output: one `OK <check>` or `FAIL <check>: <why>` line per check; exit 1 when any failed.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ruamel.yaml import YAML

# --------------------------------------------------------------------------------------------------
# reporting
# --------------------------------------------------------------------------------------------------
FAILED: list[str] = []


def ok(name: str) -> None:
    print(f"OK   {name}")


def fail(name: str, why: str) -> None:
    FAILED.append(name)
    print(f"FAIL {name}: {why}")


def check(name: str, problems: list[str]) -> None:
    if problems:
        fail(name, "; ".join(problems))
    else:
        ok(name)


# --------------------------------------------------------------------------------------------------
# env file and interpolation (https://github.com/compose-spec/compose-spec/blob/main/spec.md#interpolation)
# --------------------------------------------------------------------------------------------------
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


def plain(node: Any) -> Any:
    """ruamel's CommentedMap/Seq (merge keys resolved) -> dict/list."""
    if isinstance(node, dict):
        return {str(k): plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    return node


# --------------------------------------------------------------------------------------------------
# small helpers over the compose model
# --------------------------------------------------------------------------------------------------
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


def is_loopback(host: str | None) -> bool:
    return host in {"localhost", "127.0.0.1", "::1", "0.0.0.0"} or bool(host and host.startswith("127."))


SECRET_KEY = re.compile(r"(PASSWORD|PASSWD|SECRET|API_KEY|TOKEN|CREDENTIAL|PRIVATE_KEY)", re.I)
SAFE_SECRET_VALUE = re.compile(r"^\$\{[A-Za-z_][A-Za-z0-9_]*(?::\?[^}]*|\?[^}]*|:-|-)?\}$")
VLLM_LORA_RANKS = {1, 8, 16, 32, 64, 128, 256, 320, 512}


# --------------------------------------------------------------------------------------------------
# .dockerignore (https://docs.docker.com/build/concepts/context/#dockerignore-files)
# --------------------------------------------------------------------------------------------------
def dockerignore_patterns(path: Path) -> list[tuple[bool, str]]:
    patterns = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        pattern = line[1:].strip() if negate else line
        pattern = os.path.normpath(pattern).lstrip("/")
        patterns.append((negate, pattern))
    return patterns


def _glob_match(pattern: str, rel: str) -> bool:
    regex = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            regex += "(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            regex += ".*"
            i += 2
        elif pattern[i] == "*":
            regex += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            regex += "[^/]"
            i += 1
        else:
            regex += re.escape(pattern[i])
            i += 1
    # a pattern naming a directory excludes everything below it
    return re.fullmatch(regex + "(?:/.*)?", rel) is not None


def dockerignored(patterns: list[tuple[bool, str]], rel: str) -> bool:
    excluded = False
    for negate, pattern in patterns:
        if _glob_match(pattern, rel):
            excluded = not negate
    return excluded


# --------------------------------------------------------------------------------------------------
# the checks
# --------------------------------------------------------------------------------------------------
def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--compose", required=True, type=Path)
    ap.add_argument("--env-file", type=Path)
    ap.add_argument("--project-directory", type=Path)
    ap.add_argument("--repo-root", required=True, type=Path)
    ap.add_argument("--schema", required=True, type=Path)
    ap.add_argument("--env-checker", required=True, type=Path)
    ap.add_argument("--published", default="chat-gateway", help="comma list of services allowed to publish ports")
    args = ap.parse_args()

    compose_path: Path = args.compose.resolve()
    project_dir: Path = (args.project_directory or compose_path.parent).resolve()
    repo_root: Path = args.repo_root.resolve()

    # ---- YAML --------------------------------------------------------------------------------------
    yaml = YAML(typ="safe", pure=True)
    try:
        raw_doc = plain(yaml.load(compose_path.read_text(encoding="utf-8")))
    except Exception as error:  # noqa: BLE001 - any parse error is the finding
        fail("yaml", f"{compose_path}: {error}".replace("\n", " "))
        return 1
    if not isinstance(raw_doc, dict) or not isinstance(raw_doc.get("services"), dict):
        fail("yaml", "no top-level `services` mapping")
        return 1
    ok(f"yaml ({compose_path.name}, {len(raw_doc['services'])} services)")

    # ---- interpolation -----------------------------------------------------------------------------
    env = read_env_file(args.env_file)
    errors: list[str] = []
    doc = interpolate_tree(raw_doc, env, "", errors)
    check(f"interpolation (env file: {args.env_file.name if args.env_file else 'none'})", errors)

    # Secrets must come from variables that have no default (or an empty one), never from the file.
    problems = []
    for name, svc in raw_doc["services"].items():
        for key, value in env_map(svc).items():
            if SECRET_KEY.search(key) and not SAFE_SECRET_VALUE.match(value):
                problems.append(f"{name}.environment.{key} must be ${{VAR:?message}} (or ${{VAR:-}} when optional), not {value!r}")
    empty_errors: list[str] = []
    interpolate_tree(raw_doc, {}, "", empty_errors)
    required_without_env = sorted({m.group(1) for e in empty_errors for m in [re.match(r"required variable (\w+)", e)] if m})
    if not required_without_env:
        problems.append("no variable is required (${VAR:?...}): secrets would silently be empty or defaulted")
    check(f"secrets come from required variables ({', '.join(required_without_env) or 'none'})", problems)

    # ---- Compose Specification schema --------------------------------------------------------------
    try:
        from jsonschema import Draft202012Validator
        from referencing import Registry, Resource

        schema = json.loads(args.schema.read_text(encoding="utf-8"))
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

    services: dict[str, dict[str, Any]] = doc["services"]

    # ---- build args name real apps -----------------------------------------------------------------
    problems = []
    app_of: dict[str, str] = {}
    dockerfiles: set[Path] = set()
    for name, svc in services.items():
        build = svc.get("build")
        if build is None:
            continue
        if isinstance(build, str):
            build = {"context": build}
        context = (project_dir / str(build.get("context", "."))).resolve()
        dockerfile = (context / str(build.get("dockerfile", "Dockerfile"))).resolve()
        if not context.is_dir():
            problems.append(f"{name}: build context {context} does not exist")
        if not dockerfile.is_file():
            problems.append(f"{name}: dockerfile {dockerfile} does not exist")
        else:
            dockerfiles.add(dockerfile)
        build_args = build.get("args") or {}
        if isinstance(build_args, list):
            build_args = dict(str(a).partition("=")[::2] for a in build_args)
        app = build_args.get("APP")
        if not app:
            problems.append(f"{name}: build.args.APP is not set")
            continue
        project = context / "apps" / str(app) / "project.json"
        if not project.is_file():
            problems.append(f"{name}: build.args.APP={app} but {project.relative_to(context) if project.is_relative_to(context) else project} does not exist")
            continue
        try:
            targets = json.loads(project.read_text(encoding="utf-8")).get("targets", {})
        except json.JSONDecodeError as error:
            problems.append(f"{name}: {project} is not JSON ({error})")
            continue
        if "build" not in targets:
            problems.append(f"{name}: {project} has no build target")
        app_of[name] = str(app)
    check(f"build.args.APP names an app with a build target ({', '.join(sorted(set(app_of.values()))) or 'none'})", problems)

    # ---- images pinned -------------------------------------------------------------------------------
    problems = []
    for name, svc in services.items():
        image = svc.get("image")
        if image is None:
            if "build" not in svc:
                problems.append(f"{name}: neither image nor build")
            continue
        last = str(image).rsplit("/", 1)[-1]
        if "@sha256:" in str(image):
            continue
        if ":" not in last:
            problems.append(f"{name}: image {image} has no tag")
        elif last.endswith(":latest") and "build" not in svc:
            problems.append(f"{name}: image {image} uses :latest")
    check("images are pinned (no missing or :latest tags)", problems)

    # ---- references between services -----------------------------------------------------------------
    problems = []
    for name, svc in services.items():
        for dep, spec in depends_map(svc).items():
            if dep not in services:
                problems.append(f"{name} depends on unknown service {dep}")
                continue
            target = services[dep]
            condition = spec.get("condition", "service_started")
            if condition == "service_healthy":
                hc = target.get("healthcheck") or {}
                if hc.get("disable") or (not hc.get("test") and dep not in app_of):
                    problems.append(f"{name} waits for {dep} to be healthy but {dep} has no healthcheck")
            if condition == "service_completed_successfully" and str(target.get("restart", "no")) not in {"no", "on-failure"} and not str(target.get("restart", "no")).startswith("on-failure"):
                problems.append(f"{name} waits for {dep} to complete but {dep} restarts ({target.get('restart')})")
        for volume in svc.get("volumes") or []:
            source = volume.get("source") if isinstance(volume, dict) else str(volume).split(":", 1)[0]
            vtype = volume.get("type", "volume") if isinstance(volume, dict) else ("bind" if source.startswith((".", "/", "~")) else "volume")
            if vtype == "volume" and source and source not in (doc.get("volumes") or {}):
                problems.append(f"{name} mounts undeclared volume {source}")
    check("depends_on, healthchecks and volumes reference what exists", problems)

    # ---- long-running services restart and report health ------------------------------------------
    problems = []
    one_shots = {dep for svc in services.values() for dep, spec in depends_map(svc).items() if spec.get("condition") == "service_completed_successfully"}
    for name, svc in services.items():
        if name in one_shots:
            continue
        if str(svc.get("restart", "no")) == "no":
            problems.append(f"{name} has no restart policy")
        hc = svc.get("healthcheck") or {}
        if hc.get("disable") or not hc.get("test"):
            problems.append(f"{name} has no healthcheck")
    check("long-running services have a restart policy and a healthcheck", problems)

    # ---- published ports -------------------------------------------------------------------------------
    allowed = {s for s in args.published.split(",") if s}
    published = sorted(name for name, svc in services.items() if svc.get("ports"))
    check(
        f"only {', '.join(sorted(allowed))} publish ports",
        [f"{name} publishes {services[name]['ports']}" for name in published if name not in allowed],
    )

    # ---- migrations: one-shot, same image as the gateway, before every app ----------------------------
    problems = []
    migrators = [n for n, s in services.items() if any("migrate.cjs" in a for a in command_list(s))]
    if not migrators:
        problems.append("no service runs docker/migrate.cjs")
    for m in migrators:
        svc = services[m]
        gateway_images = {services[n].get("image") for n, a in app_of.items() if a == "chat-gateway" and n != m}
        if svc.get("image") not in gateway_images:
            problems.append(f"{m} image {svc.get('image')} is not the gateway's ({', '.join(map(str, gateway_images)) or 'none'})")
        url = env_map(svc).get("DATABASE_URL", "")
        if not url.startswith(("postgres://", "postgresql://")):
            problems.append(f"{m}: DATABASE_URL is not a postgres:// URL")
        elif is_loopback(urlsplit(url).hostname):
            problems.append(f"{m}: DATABASE_URL points at loopback ({urlsplit(url).hostname}), the container itself")
        for app_service in app_of:
            if app_service == m:
                continue
            if depends_map(services[app_service]).get(m, {}).get("condition") != "service_completed_successfully":
                problems.append(f"{app_service} does not wait for {m} (condition service_completed_successfully)")
    check(f"migrations run once before the apps ({', '.join(migrators) or 'none'})", problems)

    # ---- infrastructure wiring ---------------------------------------------------------------------------
    by_image = lambda prefix: [n for n, s in services.items() if str(s.get("image", "")).startswith(prefix)]  # noqa: E731
    app_services = {n: a for n, a in app_of.items() if n not in migrators}

    # PostgreSQL: every DATABASE_URL names the postgres service and its user and database.
    problems = []
    pg = by_image("postgres")
    if len(pg) != 1:
        problems.append(f"expected one postgres service, found {pg}")
    else:
        pg_env = env_map(services[pg[0]])
        for name in list(app_services) + migrators:
            url = urlsplit(env_map(services[name]).get("DATABASE_URL", ""))
            if url.hostname != pg[0]:
                problems.append(f"{name}: DATABASE_URL host {url.hostname} is not {pg[0]}")
            if url.username != pg_env.get("POSTGRES_USER", "postgres"):
                problems.append(f"{name}: DATABASE_URL user {url.username} != POSTGRES_USER")
            if url.password != pg_env.get("POSTGRES_PASSWORD"):
                problems.append(f"{name}: DATABASE_URL password != POSTGRES_PASSWORD")
            if url.path.lstrip("/") != pg_env.get("POSTGRES_DB", pg_env.get("POSTGRES_USER", "postgres")):
                problems.append(f"{name}: DATABASE_URL database {url.path.lstrip('/')} != POSTGRES_DB")
            if pg[0] not in depends_map(services[name]):
                problems.append(f"{name} does not depend on {pg[0]}")
    check("postgres wiring (DATABASE_URL host, user, password, database)", problems)

    # Kafka: KRaft single node, RF 1, a valid cluster id, apps use the advertised listener.
    problems = []
    kafka = by_image("apache/kafka")
    if len(kafka) != 1:
        problems.append(f"expected one apache/kafka service, found {kafka}")
    else:
        k = kafka[0]
        kenv = env_map(services[k])
        for required in ("KAFKA_NODE_ID", "KAFKA_PROCESS_ROLES", "KAFKA_CONTROLLER_QUORUM_VOTERS", "KAFKA_LISTENERS",
                         "KAFKA_ADVERTISED_LISTENERS", "KAFKA_CONTROLLER_LISTENER_NAMES", "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP"):
            if not kenv.get(required):
                problems.append(f"{k}: {required} is not set")
        if set(kenv.get("KAFKA_PROCESS_ROLES", "").split(",")) != {"broker", "controller"}:
            problems.append(f"{k}: KAFKA_PROCESS_ROLES should be broker,controller for one node")
        for rf in ("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR", "KAFKA_TRANSACTION_STATE_LOG_MIN_ISR"):
            if kenv.get(rf) != "1":
                problems.append(f"{k}: {rf} must be 1 on a single broker (is {kenv.get(rf)!r})")
        cluster_id = kenv.get("CLUSTER_ID", "")
        try:
            decoded = base64.urlsafe_b64decode(cluster_id + "==")
            if len(cluster_id) != 22 or len(decoded) != 16:
                raise ValueError
        except ValueError:
            problems.append(f"{k}: CLUSTER_ID {cluster_id!r} is not 16 bytes in base64url (22 chars)")
        voters = kenv.get("KAFKA_CONTROLLER_QUORUM_VOTERS", "")
        if not voters.startswith(f"{kenv.get('KAFKA_NODE_ID')}@"):
            problems.append(f"{k}: KAFKA_CONTROLLER_QUORUM_VOTERS {voters!r} does not start with node id {kenv.get('KAFKA_NODE_ID')}")
        advertised = {
            (u.hostname, u.port)
            for part in kenv.get("KAFKA_ADVERTISED_LISTENERS", "").split(",")
            if part for u in [urlsplit("//" + part.split("://", 1)[-1])]
        }
        names = {k, str(services[k].get("hostname", k))}
        if not any(host in names for host, _ in advertised):
            problems.append(f"{k}: KAFKA_ADVERTISED_LISTENERS {kenv.get('KAFKA_ADVERTISED_LISTENERS')!r} is not reachable as {k} from other containers")
        for name in app_services:
            brokers = [b.strip() for b in env_map(services[name]).get("KAFKA_BROKERS", "").split(",") if b.strip()]
            for broker in brokers:
                host, _, port = broker.rpartition(":")
                if (host, int(port) if port.isdigit() else None) not in advertised:
                    problems.append(f"{name}: KAFKA_BROKERS {broker} is not an advertised listener of {k}")
            if not brokers:
                problems.append(f"{name}: KAFKA_BROKERS is not set")
            if k not in depends_map(services[name]):
                problems.append(f"{name} does not depend on {k}")
    check("kafka wiring (KRaft single node, RF 1, cluster id, advertised listener = KAFKA_BROKERS)", problems)

    # vLLM: LoRA serving with runtime updates, one NVIDIA GPU, what the gateway asks for.
    problems = []
    vllm = by_image("vllm/vllm-openai")
    if len(vllm) != 1:
        problems.append(f"expected one vllm/vllm-openai service, found {vllm}")
    else:
        v = vllm[0]
        svc = services[v]
        argv = command_list(svc, "entrypoint") + command_list(svc)
        venv_ = env_map(svc)
        if "--enable-lora" not in argv:
            problems.append(f"{v}: --enable-lora is missing")
        if "--model" in argv or any(a.startswith("--model=") for a in argv):
            problems.append(f"{v}: pass the model positionally (`vllm serve MODEL`), --model is deprecated")
        ranks = flag_values(argv, "--max-lora-rank")
        if not ranks or not ranks[-1].isdigit() or int(ranks[-1]) not in VLLM_LORA_RANKS:
            problems.append(f"{v}: --max-lora-rank {ranks[-1] if ranks else '(unset)'} not in {sorted(VLLM_LORA_RANKS)}")
        loras = flag_values(argv, "--max-loras")
        if loras and (not loras[-1].isdigit() or int(loras[-1]) < 1):
            problems.append(f"{v}: --max-loras must be an integer >= 1")
        if venv_.get("VLLM_ALLOW_RUNTIME_LORA_UPDATING", "").strip().lower() not in {"1", "true"}:
            problems.append(f"{v}: VLLM_ALLOW_RUNTIME_LORA_UPDATING must be 1/true for /v1/load_lora_adapter")
        devices = (((svc.get("deploy") or {}).get("resources") or {}).get("reservations") or {}).get("devices") or []
        if not any(d.get("driver") == "nvidia" and "gpu" in (d.get("capabilities") or []) for d in devices):
            problems.append(f"{v}: no deploy.resources.reservations.devices entry with driver nvidia and capabilities [gpu]")
        served = (flag_values(argv, "--served-model-name") or [None])[-1]
        port = (flag_values(argv, "--port") or ["8000"])[-1]
        for name, app in app_services.items():
            if app != "chat-gateway":
                continue
            genv = env_map(services[name])
            base = urlsplit(genv.get("LLM_BASE_URL", ""))
            if base.hostname != v or str(base.port or 80) != port or not base.path.rstrip("/").endswith("/v1"):
                problems.append(f"{name}: LLM_BASE_URL {genv.get('LLM_BASE_URL')!r} is not http://{v}:{port}/v1")
            if served and genv.get("LLM_MODEL") != served:
                problems.append(f"{name}: LLM_MODEL {genv.get('LLM_MODEL')!r} != --served-model-name {served!r}")
            if venv_.get("VLLM_API_KEY") and genv.get("LLM_API_KEY") != venv_.get("VLLM_API_KEY"):
                problems.append(f"{name}: LLM_API_KEY differs from {v}'s VLLM_API_KEY")
            if depends_map(services[name]).get(v, {}).get("condition") != "service_healthy":
                problems.append(f"{name} does not wait for {v} to be healthy")
    check("vllm wiring (LoRA flags, runtime adapter updates, GPU reservation, gateway model/key/url)", problems)

    # ---- app environments, against each app's own zod schema ---------------------------------------------
    payload = [{"service": n, "app": a, "env": env_map(services[n])} for n, a in app_services.items()]
    if payload:
        result = subprocess.run(
            ["node", str(args.env_checker)],
            input=json.dumps({"repoRoot": str(repo_root), "services": payload}),
            capture_output=True,
            text=True,
            cwd=repo_root,
            check=False,
        )
        lines = [line for line in result.stdout.splitlines() if line.strip()]
        for line in lines:
            print(line)
            if line.startswith("FAIL"):
                FAILED.append(line)
        if result.returncode != 0 and not any(line.startswith("FAIL") for line in lines):
            fail("app environments", (result.stderr.strip() or f"env checker exited {result.returncode}").splitlines()[-1])
    else:
        fail("app environments", "no app service found (build.args.APP)")

    # ---- the Dockerfile's .dockerignore ---------------------------------------------------------------------
    for dockerfile in sorted(dockerfiles):
        ignore = dockerfile.with_name(dockerfile.name + ".dockerignore")
        context = repo_root
        problems = []
        if not ignore.is_file():
            fail(f"{ignore.name}", f"missing: the build context would include node_modules, .git and .env files")
            continue
        patterns = dockerignore_patterns(ignore)
        for rel in ("node_modules/x/index.js", ".git/config", ".infra/pg/data", "dist/apps/x/main.js", "docker/.env", ".env", "coverage/x"):
            if not dockerignored(patterns, rel):
                problems.append(f"{rel} is not excluded")
        for line in dockerfile.read_text(encoding="utf-8").splitlines():
            m = re.match(r"^\s*(COPY|ADD)\s+(.*)$", line)
            if not m or "--from=" in line:
                continue
            parts = [p for p in m.group(2).split() if not p.startswith("--")]
            for source in parts[:-1]:
                rel = os.path.normpath(source).lstrip("/")
                if not (context / rel).exists():
                    problems.append(f"COPY source {rel} does not exist")
                elif dockerignored(patterns, rel):
                    problems.append(f"COPY source {rel} is excluded")
        check(f"{dockerfile.relative_to(repo_root) if dockerfile.is_relative_to(repo_root) else dockerfile} context: {ignore.name}", problems)

    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
