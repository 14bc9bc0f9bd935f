"""The checks on how the apps reach the infrastructure: PostgreSQL, Kafka and vLLM, each found by its image."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import urlsplit

from check_report import check
from compose_model import command_list, depends_map, env_map, flag_values, services_with_image

VLLM_LORA_RANKS = {1, 8, 16, 32, 64, 128, 256, 320, 512}
KAFKA_KRAFT_SETTINGS = (
    "KAFKA_NODE_ID",
    "KAFKA_PROCESS_ROLES",
    "KAFKA_CONTROLLER_QUORUM_VOTERS",
    "KAFKA_LISTENERS",
    "KAFKA_ADVERTISED_LISTENERS",
    "KAFKA_CONTROLLER_LISTENER_NAMES",
    "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP",
)
KAFKA_REPLICATION_SETTINGS = (
    "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR",
    "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR",
    "KAFKA_TRANSACTION_STATE_LOG_MIN_ISR",
)


def check_postgres_wiring(
    services: dict[str, dict[str, Any]], app_services: dict[str, str], migrators: list[str]
) -> None:
    """Every DATABASE_URL names the postgres service and its user and database."""
    problems = []
    pg = services_with_image(services, "postgres")
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


def check_kafka_wiring(services: dict[str, dict[str, Any]], app_services: dict[str, str]) -> None:
    """KRaft single node, RF 1, a valid cluster id, apps use the advertised listener."""
    problems = []
    kafka = services_with_image(services, "apache/kafka")
    if len(kafka) != 1:
        problems.append(f"expected one apache/kafka service, found {kafka}")
    else:
        k = kafka[0]
        kenv = env_map(services[k])
        for required in KAFKA_KRAFT_SETTINGS:
            if not kenv.get(required):
                problems.append(f"{k}: {required} is not set")
        if set(kenv.get("KAFKA_PROCESS_ROLES", "").split(",")) != {"broker", "controller"}:
            problems.append(f"{k}: KAFKA_PROCESS_ROLES should be broker,controller for one node")
        for rf in KAFKA_REPLICATION_SETTINGS:
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
            problems.append(
                f"{k}: KAFKA_CONTROLLER_QUORUM_VOTERS {voters!r}"
                f" does not start with node id {kenv.get('KAFKA_NODE_ID')}"
            )
        advertised = {
            (u.hostname, u.port)
            for part in kenv.get("KAFKA_ADVERTISED_LISTENERS", "").split(",")
            if part
            for u in [urlsplit("//" + part.split("://", 1)[-1])]
        }
        names = {k, str(services[k].get("hostname", k))}
        if not any(host in names for host, _ in advertised):
            problems.append(
                f"{k}: KAFKA_ADVERTISED_LISTENERS {kenv.get('KAFKA_ADVERTISED_LISTENERS')!r}"
                f" is not reachable as {k} from other containers"
            )
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


def check_vllm_wiring(services: dict[str, dict[str, Any]], app_services: dict[str, str]) -> None:
    """LoRA serving with runtime updates, one NVIDIA GPU, what the gateway asks for."""
    problems = []
    vllm = services_with_image(services, "vllm/vllm-openai")
    if len(vllm) != 1:
        problems.append(f"expected one vllm/vllm-openai service, found {vllm}")
    else:
        v = vllm[0]
        svc = services[v]
        argv = command_list(svc, "entrypoint") + command_list(svc)
        vllm_env = env_map(svc)
        if "--enable-lora" not in argv:
            problems.append(f"{v}: --enable-lora is missing")
        if "--model" in argv or any(a.startswith("--model=") for a in argv):
            problems.append(f"{v}: pass the model positionally (`vllm serve MODEL`), --model is deprecated")
        ranks = flag_values(argv, "--max-lora-rank")
        if not ranks or not ranks[-1].isdigit() or int(ranks[-1]) not in VLLM_LORA_RANKS:
            problems.append(
                f"{v}: --max-lora-rank {ranks[-1] if ranks else '(unset)'} not in {sorted(VLLM_LORA_RANKS)}"
            )
        loras = flag_values(argv, "--max-loras")
        if loras and (not loras[-1].isdigit() or int(loras[-1]) < 1):
            problems.append(f"{v}: --max-loras must be an integer >= 1")
        if vllm_env.get("VLLM_ALLOW_RUNTIME_LORA_UPDATING", "").strip().lower() not in {"1", "true"}:
            problems.append(f"{v}: VLLM_ALLOW_RUNTIME_LORA_UPDATING must be 1/true for /v1/load_lora_adapter")
        devices = (((svc.get("deploy") or {}).get("resources") or {}).get("reservations") or {}).get("devices") or []
        if not any(d.get("driver") == "nvidia" and "gpu" in (d.get("capabilities") or []) for d in devices):
            problems.append(
                f"{v}: no deploy.resources.reservations.devices entry with driver nvidia and capabilities [gpu]"
            )
        served = (flag_values(argv, "--served-model-name") or [None])[-1]
        port = (flag_values(argv, "--port") or ["8000"])[-1]
        for name, app in app_services.items():
            if app != "chat-gateway":
                continue
            gateway_env = env_map(services[name])
            base = urlsplit(gateway_env.get("LLM_BASE_URL", ""))
            if base.hostname != v or str(base.port or 80) != port or not base.path.rstrip("/").endswith("/v1"):
                problems.append(f"{name}: LLM_BASE_URL {gateway_env.get('LLM_BASE_URL')!r} is not http://{v}:{port}/v1")
            if served and gateway_env.get("LLM_MODEL") != served:
                problems.append(f"{name}: LLM_MODEL {gateway_env.get('LLM_MODEL')!r} != --served-model-name {served!r}")
            if vllm_env.get("VLLM_API_KEY") and gateway_env.get("LLM_API_KEY") != vllm_env.get("VLLM_API_KEY"):
                problems.append(f"{name}: LLM_API_KEY differs from {v}'s VLLM_API_KEY")
            if depends_map(services[name]).get(v, {}).get("condition") != "service_healthy":
                problems.append(f"{name} does not wait for {v} to be healthy")
    check("vllm wiring (LoRA flags, runtime adapter updates, GPU reservation, gateway model/key/url)", problems)
