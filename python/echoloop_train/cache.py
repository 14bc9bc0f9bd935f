"""Build-once artifacts under the machine's cache dir, shared by concurrent jobs."""

import fcntl
import hashlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def cache_dir() -> Path:
    return Path(os.environ.get("ECHOLOOP_CACHE_DIR") or REPO_ROOT / ".infra" / "cache")


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def build_once(target: Path, build: Callable[[Path], None]) -> bool:
    """Makes `target` exist: `build(tmp)` fills a fresh sibling dir that is renamed onto it.

    A lock file beside it makes concurrent callers build it once; a leftover partial dir (a killed builder) is
    discarded under that lock. Returns whether this call built it.
    """
    if target.is_dir():
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{target}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.is_dir():
            return False
        partial = Path(f"{target}.partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir()
        try:
            build(partial)
        except BaseException:
            shutil.rmtree(partial, ignore_errors=True)
            raise
        partial.rename(target)
        return True
