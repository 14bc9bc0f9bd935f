"""What a schema cannot know about the rendered chart: prints one line per broken rule and exits 1 when any is.

    python3 tools/ci/helm-checks.py RENDERED.yaml

Rules:
  probes     every Deployment's containers have readiness and liveness probes on an HTTP path under /health
  resources  every container (Deployments, Jobs, the RayCluster's pods) requests CPU and memory and limits memory
  secrets    an environment variable that holds a secret (a key, token, password or the database URL) comes from a
             Secret, never from a literal value
  adapters   the adapter volume is ReadWriteMany and mounted by vLLM (read-only) and by every Ray pod that trains
  hooks      the migrations Job runs before install and upgrade and uses nothing the release creates after it
             (a ServiceAccount, Secret, ConfigMap or claim of the chart), which would not exist yet on install
  services   every Service selects the pods of a Deployment and its target port names one of their ports
"""

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

SECRET_NAME = re.compile(r"(?:^|_)(?:KEY|SECRET|PASSWORD|TOKEN)$|^DATABASE_URL$")
HOOK_TIME = {"pre-install", "pre-upgrade"}


def pod_specs(obj: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, pod spec) for each pod template an object carries."""
    kind, name, spec = obj["kind"], obj["metadata"]["name"], obj.get("spec", {})
    if kind in {"Deployment", "Job", "StatefulSet", "DaemonSet"}:
        yield f"{kind} {name}", spec["template"]["spec"]
    elif kind == "RayCluster":
        yield f"RayCluster {name} head", spec["headGroupSpec"]["template"]["spec"]
        for group in spec.get("workerGroupSpecs", []):
            yield f"RayCluster {name} worker group {group['groupName']}", group["template"]["spec"]


def containers(pod: dict[str, Any]) -> list[dict[str, Any]]:
    return [*pod.get("initContainers", []), *pod.get("containers", [])]


def check(objects: list[dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for obj in objects:
        by_kind.setdefault(obj["kind"], []).append(obj)
    names_of = lambda kind: {o["metadata"]["name"] for o in by_kind.get(kind, [])}  # noqa: E731

    for obj in objects:
        for where, pod in pod_specs(obj):
            for c in containers(pod):
                at = f"{where} container {c['name']}"
                resources = c.get("resources", {})
                requests, limits = resources.get("requests", {}), resources.get("limits", {})
                if not ("cpu" in requests and "memory" in requests and "memory" in limits):
                    problems.append(f"resources: {at} needs requests.cpu, requests.memory and limits.memory")
                for env in c.get("env", []):
                    if SECRET_NAME.search(env["name"]) and "value" in env:
                        problems.append(f"secrets: {at} sets {env['name']} as a literal, not from a Secret")
                if obj["kind"] == "Deployment" and pod.get("containers", [None])[0] is c:
                    for probe in ("readinessProbe", "livenessProbe"):
                        path = c.get(probe, {}).get("httpGet", {}).get("path", "")
                        if not path.startswith("/health"):
                            problems.append(f"probes: {at} has no {probe} on /health")

    claims = [p for p in by_kind.get("PersistentVolumeClaim", []) if "adapters" in p["metadata"]["name"]]
    if len(claims) != 1:
        problems.append(f"adapters: expected one adapter claim, found {len(claims)}")
    else:
        claim = claims[0]
        if "ReadWriteMany" not in claim["spec"].get("accessModes", []):
            problems.append("adapters: the adapter claim must be ReadWriteMany (vLLM and Ray pods share it)")
        name = claim["metadata"]["name"]
        mounting = [
            (where, obj["kind"])
            for obj in objects
            for where, pod in pod_specs(obj)
            if any(v.get("persistentVolumeClaim", {}).get("claimName") == name for v in pod.get("volumes", []))
        ]
        wheres = [w for w, _ in mounting]
        if not any("vllm" in w for w in wheres):
            problems.append("adapters: vLLM does not mount the adapter claim")
        for obj in by_kind.get("RayCluster", []):
            for where, _ in pod_specs(obj):
                if where not in wheres:
                    problems.append(f"adapters: {where} does not mount the adapter claim")

    jobs = [j for j in by_kind.get("Job", []) if "migrations" in j["metadata"]["name"]]
    if len(jobs) != 1:
        problems.append(f"hooks: expected one migrations Job, found {len(jobs)}")
    for job in jobs:
        hooks = set(job["metadata"].get("annotations", {}).get("helm.sh/hook", "").split(","))
        if not HOOK_TIME <= hooks:
            problems.append("hooks: the migrations Job must be a pre-install,pre-upgrade hook")
        later = {kind: names_of(kind) for kind in ("ServiceAccount", "Secret", "ConfigMap", "PersistentVolumeClaim")}
        for where, pod in pod_specs(job):
            if pod.get("serviceAccountName") in later["ServiceAccount"]:
                problems.append(f"hooks: {where} uses the chart's ServiceAccount, created after the hook")
            for c in containers(pod):
                for env in c.get("env", []):
                    ref = env.get("valueFrom", {})
                    for source, kind in (("secretKeyRef", "Secret"), ("configMapKeyRef", "ConfigMap")):
                        if ref.get(source, {}).get("name") in later[kind]:
                            problems.append(f"hooks: {where} reads {env['name']} from the chart's {kind}")
            for v in pod.get("volumes", []):
                if v.get("persistentVolumeClaim", {}).get("claimName") in later["PersistentVolumeClaim"]:
                    problems.append(f"hooks: {where} mounts the chart's claim {v['name']}")

    deployments = by_kind.get("Deployment", [])
    for svc in by_kind.get("Service", []):
        selector = svc["spec"].get("selector", {})
        pods = [
            d["spec"]["template"]
            for d in deployments
            if selector and selector.items() <= d["spec"]["template"]["metadata"]["labels"].items()
        ]
        if not pods:
            problems.append(f"services: Service {svc['metadata']['name']} selects no Deployment's pods")
            continue
        ports = {p.get("name") for t in pods for c in t["spec"]["containers"] for p in c.get("ports", [])}
        for port in svc["spec"].get("ports", []):
            target = port.get("targetPort")
            if isinstance(target, str) and target not in ports:
                problems.append(f"services: Service {svc['metadata']['name']} targets port {target}, not a pod's")
    return problems


def main(file: str) -> int:
    objects = [o for o in yaml.safe_load_all(Path(file).read_text()) if o]
    problems = check(objects)
    for line in problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
