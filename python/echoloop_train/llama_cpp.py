"""llama.cpp's convert_lora_to_gguf.py, from the source node-llama-cpp ships (matched to the binaries it runs)."""

import json
import subprocess
import sys
from pathlib import Path

from .cache import REPO_ROOT, build_once, cache_dir

NODE_LLAMA_CPP = REPO_ROOT / "node_modules" / "node-llama-cpp"


def ensure_llama_cpp_source() -> Path:
    version = json.loads((NODE_LLAMA_CPP / "package.json").read_text())["version"]
    target = cache_dir() / "llama-cpp" / f"node-llama-cpp-{version}"
    bundle = NODE_LLAMA_CPP / "llama" / "gitRelease.bundle"
    build_once(target, lambda tmp: _clone(bundle, tmp))
    return target


def _clone(bundle: Path, out: Path) -> None:
    subprocess.run(["git", "clone", "--quiet", str(bundle), str(out)], check=True, capture_output=True, text=True)


def convert_lora(peft_dir: Path, hf_base: Path, outfile: Path) -> None:
    """Writes the PEFT adapter in peft_dir as an f16 GGUF LoRA; the converter's log is shown only if it fails."""
    script = ensure_llama_cpp_source() / "convert_lora_to_gguf.py"
    command = [sys.executable, str(script), str(peft_dir), "--base", str(hf_base), "--outfile", str(outfile)]
    output = subprocess.run(
        [*command, "--outtype", "f16"], check=False, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    if output.returncode != 0:
        sys.stderr.write(output.stdout)
        tail = output.stdout.strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"convert_lora_to_gguf.py exited with {output.returncode}: {tail[0]}")
