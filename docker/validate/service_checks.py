"""The checks on how services refer to each other and run: pinned images, depends_on/healthcheck/volume references,
restart policies and healthchecks, published ports."""

from __future__ import annotations

from typing import Any

from check_report import check
from compose_model import depends_map


def check_images_pinned(services: dict[str, dict[str, Any]]) -> None:
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


def check_references(services: dict[str, dict[str, Any]], declared_volumes: Any, app_of: dict[str, str]) -> None:
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
            restart = str(target.get("restart", "no"))
            if (
                condition == "service_completed_successfully"
                and restart not in {"no", "on-failure"}
                and not restart.startswith("on-failure")
            ):
                problems.append(f"{name} waits for {dep} to complete but {dep} restarts ({target.get('restart')})")
        for volume in svc.get("volumes") or []:
            source = volume.get("source") if isinstance(volume, dict) else str(volume).split(":", 1)[0]
            if isinstance(volume, dict):
                vtype = volume.get("type", "volume")
            else:
                vtype = "bind" if source.startswith((".", "/", "~")) else "volume"
            if vtype == "volume" and source and source not in declared_volumes:
                problems.append(f"{name} mounts undeclared volume {source}")
    check("depends_on, healthchecks and volumes reference what exists", problems)


def check_long_running_services(services: dict[str, dict[str, Any]]) -> None:
    problems = []
    one_shots = {
        dep
        for svc in services.values()
        for dep, spec in depends_map(svc).items()
        if spec.get("condition") == "service_completed_successfully"
    }
    for name, svc in services.items():
        if name in one_shots:
            continue
        if str(svc.get("restart", "no")) == "no":
            problems.append(f"{name} has no restart policy")
        hc = svc.get("healthcheck") or {}
        if hc.get("disable") or not hc.get("test"):
            problems.append(f"{name} has no healthcheck")
    check("long-running services have a restart policy and a healthcheck", problems)


def check_published_ports(services: dict[str, dict[str, Any]], allowed_services: str) -> None:
    allowed = {s for s in allowed_services.split(",") if s}
    published = sorted(name for name, svc in services.items() if svc.get("ports"))
    check(
        f"only {', '.join(sorted(allowed))} publish ports",
        [f"{name} publishes {services[name]['ports']}" for name in published if name not in allowed],
    )
