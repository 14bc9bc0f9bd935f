#!/usr/bin/env bash
# Validates the Helm chart (deploy/helm/echoloop) offline, without a cluster; prints one OK/FAIL line per check and
# exits 1 when any check failed.
#
#   tools/ci/validate-helm.sh [CHART]
#
# Checks:
#   1. `helm lint --strict` with the chart's defaults and with every values file in deploy/helm/examples/.
#   2. `helm template` renders each of those value sets.
#   3. kubeconform -strict validates every rendered object: built-in kinds against the Kubernetes JSON schemas of
#      KUBERNETES_VERSION (bundled in the PyPI package kubernetes-validate, so nothing is fetched from GitHub), the
#      RayCluster against the openAPIV3Schema of KubeRay's own CRD (from the Go module of ray-operator). A kind with
#      no schema fails: nothing is skipped.
#   4. tools/ci/helm-checks.py: what a schema cannot know (every app has probes on /health, resources, secrets only
#      from Secrets, the adapter volume shared by vLLM and the RayCluster, the migrations Job runs before the apps).
# What this does not show: that a cluster admits the objects (admission webhooks, quotas, the KubeRay operator's own
# validation) or that the pods start; no cluster is at hand here.
#
# Tools (helm and kubeconform built from the Go module proxy, the schemas) are kept in
# $ECHOLOOP_CACHE_DIR/helm-tools/<versions> (default .infra/cache), so a machine builds them once.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CHART="${1:-$ROOT/deploy/helm/echoloop}"
HELM_VERSION=v4.3.2
KUBECONFORM_VERSION=v0.8.0
KUBERAY_VERSION=v1.5.0
KUBERNETES_VALIDATE_VERSION=1.37.0
KUBERNETES_VERSION=1.34.0
CACHE="${ECHOLOOP_CACHE_DIR:-$ROOT/.infra/cache}"
TOOLS="$CACHE/helm-tools/helm-$HELM_VERSION-kubeconform-$KUBECONFORM_VERSION-kuberay-$KUBERAY_VERSION-schemas-$KUBERNETES_VALIDATE_VERSION"

failures=0
ok() { printf 'OK   %s\n' "$1"; }
fail() { printf 'FAIL %s\n' "$1"; failures=$((failures + 1)); }
die() { printf 'FAIL %s\n' "$1"; echo "validate-helm: FAILED (setup)"; exit 1; }
command -v go >/dev/null || [[ -x /usr/local/go/bin/go ]] || die "go is required (to build helm and kubeconform)"
export PATH="$PATH:/usr/local/go/bin"

# ---- tools (pinned, built once per machine, under a lock so parallel runs don't race) ---------------------------
install_tools() {
  local work="$TOOLS.partial"
  rm -rf "$work" && mkdir -p "$work/bin" "$work/schemas" "$work/crds"
  echo "validate-helm: building helm $HELM_VERSION and kubeconform $KUBECONFORM_VERSION (once per machine)" >&2
  GOFLAGS=-mod=mod GOBIN="$work/bin" go install "helm.sh/helm/v4/cmd/helm@$HELM_VERSION"
  GOFLAGS=-mod=mod GOBIN="$work/bin" go install "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION"
  local wheel_dir="$work/wheel"
  python3 -m pip download --quiet --no-deps --dest "$wheel_dir" "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION"
  local strict="kubernetes_validate/kubernetes-json-schema/v$KUBERNETES_VERSION-local-strict"
  python3 -m zipfile -e "$wheel_dir"/kubernetes_validate-*.whl "$wheel_dir/x"
  mv "$wheel_dir/x/$strict" "$work/schemas/v$KUBERNETES_VERSION"
  # The schemas refer to their shared definitions by an absolute path on kubernetes.io; kubeconform compiles each
  # schema from its file, so the references point at the definitions file where it will be.
  find "$work/schemas/v$KUBERNETES_VERSION" -name '*.json' -exec sed -i \
    "s|\"/api/_definitions.json#|\"file://$TOOLS/schemas/v$KUBERNETES_VERSION/_definitions.json#|g" {} +
  rm -rf "$wheel_dir"
  local kuberay
  kuberay="$(go mod download -json "github.com/ray-project/kuberay/ray-operator@$KUBERAY_VERSION" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])')"
  python3 "$ROOT/tools/ci/crd-schemas.py" "$work/crds" "$kuberay"/config/crd/bases/ray.io_rayclusters.yaml
  mv "$work" "$TOOLS"
}
mkdir -p "$(dirname "$TOOLS")"
exec 9>"$TOOLS.lock"
flock 9
[[ -x "$TOOLS/bin/kubeconform" ]] || install_tools >&2 || die "could not install the tools (see above)"
flock -u 9
HELM="$TOOLS/bin/helm"
# Built-in kinds from the Kubernetes schemas, the RayCluster from KubeRay's CRD; a kind with neither fails.
kubeconform() {
  "$TOOLS/bin/kubeconform" -strict -output text \
    -schema-location "$TOOLS/schemas/v$KUBERNETES_VERSION/{{.ResourceKind}}{{.KindSuffix}}.json" \
    -schema-location "$TOOLS/crds/{{.ResourceKind}}-{{.Group}}-{{.ResourceAPIVersion}}.json" "$@"
}

# ---- checks ----------------------------------------------------------------------------------------------------
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
values_sets=(defaults)
for file in "$ROOT"/deploy/helm/examples/*.yaml; do [[ -f $file ]] && values_sets+=("$file"); done

for set in "${values_sets[@]}"; do
  name="$(basename "$set" .yaml)"
  args=()
  [[ $set == defaults ]] || args=(--values "$set")
  if "$HELM" lint --strict "$CHART" "${args[@]}" >"$OUT/$name.lint" 2>&1; then
    ok "helm lint --strict ($name)"
  else
    fail "helm lint --strict ($name)"; sed 's/^/     /' "$OUT/$name.lint"
  fi
  if "$HELM" template echoloop "$CHART" --namespace echoloop "${args[@]}" >"$OUT/$name.yaml" 2>"$OUT/$name.err"; then
    ok "helm template ($name): $(grep -c '^kind: ' "$OUT/$name.yaml") objects"
  else
    fail "helm template ($name)"; sed 's/^/     /' "$OUT/$name.err"; continue
  fi
  if kubeconform -summary "$OUT/$name.yaml" >"$OUT/$name.kubeconform" 2>&1; then
    ok "kubeconform -strict, Kubernetes $KUBERNETES_VERSION and KubeRay $KUBERAY_VERSION ($name): $(tail -1 "$OUT/$name.kubeconform")"
  else
    fail "kubeconform -strict ($name)"; sed 's/^/     /' "$OUT/$name.kubeconform"
  fi
  if python3 "$ROOT/tools/ci/helm-checks.py" "$OUT/$name.yaml" >"$OUT/$name.checks" 2>&1; then
    ok "chart rules ($name)"
  else
    fail "chart rules ($name)"; sed 's/^/     /' "$OUT/$name.checks"
  fi
done

# The checks can fail: a render with an unknown field in a Deployment and in the RayCluster, and one whose first
# Deployment lost its readiness probe, are refused.
python3 - "$OUT/defaults.yaml" "$OUT/broken-schema.yaml" "$OUT/broken-rules.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
first = lambda kind: next(d for d in docs if d["kind"] == kind)
first("Deployment")["spec"]["replicass"] = 1
first("RayCluster")["spec"]["rayVersionn"] = "x"
yaml.safe_dump_all(docs, open(sys.argv[2], "w"))
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
del first("Deployment")["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]
yaml.safe_dump_all(docs, open(sys.argv[3], "w"))
PY
refused="$(kubeconform "$OUT/broken-schema.yaml" 2>&1 || true)"
if grep -q "'replicass' not allowed" <<<"$refused" && grep -q "'rayVersionn' not allowed" <<<"$refused"; then
  ok "self-check: kubeconform refuses unknown fields in a Deployment and in the RayCluster"
else
  fail "self-check: kubeconform accepted unknown fields"; sed 's/^/     /' <<<"$refused"
fi
refused="$(python3 "$ROOT/tools/ci/helm-checks.py" "$OUT/broken-rules.yaml" 2>&1 || true)"
if grep -q "no readinessProbe on /health" <<<"$refused"; then
  ok "self-check: the chart rules refuse a Deployment without a readiness probe"
else
  fail "self-check: the chart rules accepted a Deployment without a readiness probe"
fi

if ((failures > 0)); then
  echo "validate-helm: $failures check(s) FAILED"
  exit 1
fi
echo "validate-helm: all checks passed"
