"""manifest.json: what a finished run produced. It is written last, so its presence means the run completed."""

import json
import os
import resource
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .cache import file_sha256


@dataclass(frozen=True)
class BaseModel:
    gguf: Path
    gguf_sha256: str
    hf: Path

    @property
    def name(self) -> str:
        """The file name up to its first dot: smollm2-135m-instruct.Q4_1.gguf -> smollm2-135m-instruct."""
        return self.gguf.name.split(".", 1)[0]


@dataclass(frozen=True)
class Adapter:
    format: str  # "peft": a directory vLLM loads with /v1/load_lora_adapter
    path: Path
    sha256: str


def build_manifest(
    *,
    template: str,
    dataset_id: str,
    base: BaseModel,
    adapters: list[Adapter],
    metrics: dict[str, Any],
    hyperparameters: dict[str, Any],
    data: dict[str, int],
    parent: dict[str, str] | None,
    peak_rss_mb: float,
    created_at: datetime | None = None,
) -> dict[str, Any]:
    created = created_at or datetime.now(UTC)
    return {
        "template": template,
        "datasetId": dataset_id,
        "createdAt": created.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "baseModel": {
            "name": base.name,
            "gguf": str(base.gguf),
            "ggufSha256": base.gguf_sha256,
            "hf": str(base.hf),
        },
        "adapters": [{"format": a.format, "path": str(a.path), "sha256": a.sha256} for a in adapters],
        "metrics": metrics,
        "hyperparameters": hyperparameters,
        "data": data,
        # The adapter this one was trained from (None: a fresh adapter on the base).
        "parent": parent,
        "peakRssMb": round(peak_rss_mb, 1),
    }


def write_json_atomic(path: Path, value: dict[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def parent_of(adapter: Path | None) -> dict[str, str] | None:
    """The manifest's record of the adapter a run trained further (None: a fresh adapter on the base)."""
    if adapter is None:
        return None
    return {"adapter": str(adapter), "sha256": file_sha256(adapter / "adapter_model.safetensors")}


def peak_rss_mb() -> float:
    """The larger of this process's peak and its largest child's; ru_maxrss is in KiB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024
