"""Writes a JSON schema per version of each CustomResourceDefinition, named as kubeconform's schema location
`{kind}-{group}-{version}.json` expects, strict like the Kubernetes schemas: an object that lists its properties
admits no others, unless the CRD keeps unknown fields there.

    python3 tools/ci/crd-schemas.py OUT_DIR CRD.yaml...
"""

import json
import sys
from pathlib import Path
from typing import Any

import yaml


def strict(schema: Any) -> Any:
    if isinstance(schema, list):
        return [strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: strict(value) for key, value in schema.items()}
    if (
        "properties" in out
        and "additionalProperties" not in out
        and not out.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    return out


def main(out_dir: str, crds: list[str]) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for file in crds:
        for crd in yaml.safe_load_all(Path(file).read_text()):
            spec = crd["spec"]
            kind = spec["names"]["kind"].lower()
            for version in spec["versions"]:
                schema = strict(version["schema"]["openAPIV3Schema"])
                target = out / f"{kind}-{spec['group']}-{version['name']}.json"
                target.write_text(json.dumps(schema))
                print(f"crd-schemas: {target.name}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
