"""The checks on the services built from this repository's apps: build.args.APP names an app, the migrations run
once before the apps, and each app's environment parses with the app's own zod schema (check-app-env.cjs)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from check_report import FAILED, check, fail
from compose_model import command_list, depends_map, env_map, is_loopback


def check_build_args_name_apps(
    services: dict[str, dict[str, Any]], project_dir: Path
) -> tuple[dict[str, str], set[Path]]:
    """Returns the app each built service runs, by service, and the Dockerfiles they build from."""
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
            shown = project.relative_to(context) if project.is_relative_to(context) else project
            problems.append(f"{name}: build.args.APP={app} but {shown} does not exist")
            continue
        try:
            targets = json.loads(project.read_text(encoding="utf-8")).get("targets", {})
        except json.JSONDecodeError as error:
            problems.append(f"{name}: {project} is not JSON ({error})")
            continue
        if "build" not in targets:
            problems.append(f"{name}: {project} has no build target")
        app_of[name] = str(app)
    apps = ", ".join(sorted(set(app_of.values()))) or "none"
    check(f"build.args.APP names an app with a build target ({apps})", problems)
    return app_of, dockerfiles


def check_migrations(services: dict[str, dict[str, Any]], app_of: dict[str, str]) -> list[str]:
    """One-shot, the gateway's image, before every app. Returns the services that run the migrations."""
    problems = []
    migrators = [n for n, s in services.items() if any("migrate.cjs" in a for a in command_list(s))]
    if not migrators:
        problems.append("no service runs docker/migrate.cjs")
    for m in migrators:
        svc = services[m]
        gateway_images = {services[n].get("image") for n, a in app_of.items() if a == "chat-gateway" and n != m}
        if svc.get("image") not in gateway_images:
            problems.append(
                f"{m} image {svc.get('image')} is not the gateway's ({', '.join(map(str, gateway_images)) or 'none'})"
            )
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
    return migrators


def check_app_environments(
    services: dict[str, dict[str, Any]], app_services: dict[str, str], env_checker: Path, repo_root: Path
) -> None:
    """Hands each app service's environment to env_checker and relays its OK/FAIL lines."""
    payload = [{"service": n, "app": a, "env": env_map(services[n])} for n, a in app_services.items()]
    if not payload:
        fail("app environments", "no app service found (build.args.APP)")
        return
    result = subprocess.run(
        ["node", str(env_checker)],
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
