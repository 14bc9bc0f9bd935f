"""The served GGUF as a Hugging Face model dir (the base that training and the LoRA converter read)."""

from pathlib import Path

from .cache import build_once, cache_dir, file_sha256


def hf_base_dir(gguf_sha256: str) -> Path:
    return cache_dir() / "hf-base" / gguf_sha256[:16]


def ensure_hf_base(gguf_path: Path, gguf_sha256: str | None = None) -> Path:
    """Converts the GGUF once per machine; later calls return the cached dir."""
    gguf_path = gguf_path.resolve()
    target = hf_base_dir(gguf_sha256 or file_sha256(gguf_path))
    build_once(target, lambda tmp: _convert(gguf_path, tmp))
    return target


def _convert(gguf_path: Path, out: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    where, name = str(gguf_path.parent), gguf_path.name
    tokenizer = AutoTokenizer.from_pretrained(where, gguf_file=name)
    loaded = AutoModelForCausalLM.from_pretrained(where, gguf_file=name, dtype=torch.float32)
    # transformers refuses to save a model loaded from GGUF ("not serializable"): rebuild it without the
    # quantization config and copy the dequantized weights over.
    config = loaded.config
    del config.quantization_config
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(loaded.state_dict())
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
