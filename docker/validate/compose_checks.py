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

The checks live beside this file, by what they look at: document_checks (1, 2 and the secrets),
service_checks, app_checks, wiring_checks and dockerignore_checks (3).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app_checks import check_app_environments, check_build_args_name_apps, check_migrations
from check_report import FAILED
from dockerignore_checks import check_dockerignores
from document_checks import (
    check_against_compose_spec,
    check_interpolation,
    check_secrets_from_required_variables,
    load_compose_yaml,
)
from service_checks import check_images_pinned, check_long_running_services, check_published_ports, check_references
from wiring_checks import check_kafka_wiring, check_postgres_wiring, check_vllm_wiring


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--compose", required=True, type=Path)
    ap.add_argument("--env-file", type=Path)
    ap.add_argument("--project-directory", type=Path)
    ap.add_argument("--repo-root", required=True, type=Path)
    ap.add_argument("--schema", required=True, type=Path)
    ap.add_argument("--env-checker", required=True, type=Path)
    ap.add_argument("--published", default="chat-gateway", help="comma list of services allowed to publish ports")
    return ap.parse_args()


def main() -> int:
    args = parse_args()
    compose_path: Path = args.compose.resolve()
    project_dir: Path = (args.project_directory or compose_path.parent).resolve()
    repo_root: Path = args.repo_root.resolve()

    raw_doc = load_compose_yaml(compose_path)
    if raw_doc is None:
        return 1
    doc = check_interpolation(raw_doc, args.env_file)
    check_secrets_from_required_variables(raw_doc)
    check_against_compose_spec(doc, args.schema)

    services = doc["services"]
    app_of, dockerfiles = check_build_args_name_apps(services, project_dir)
    check_images_pinned(services)
    check_references(services, doc.get("volumes") or {}, app_of)
    check_long_running_services(services)
    check_published_ports(services, args.published)
    migrators = check_migrations(services, app_of)
    app_services = {n: a for n, a in app_of.items() if n not in migrators}
    check_postgres_wiring(services, app_services, migrators)
    check_kafka_wiring(services, app_services)
    check_vllm_wiring(services, app_services)
    check_app_environments(services, app_services, args.env_checker, repo_root)
    check_dockerignores(dockerfiles, repo_root)

    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
