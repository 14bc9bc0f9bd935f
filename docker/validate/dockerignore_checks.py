"""The check on each Dockerfile's build context: its <Dockerfile>.dockerignore keeps dependencies, git and env files
out and lets every COPY source in.

https://docs.docker.com/build/concepts/context/#dockerignore-files
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from check_report import check, fail

# Paths the build context must never carry: installed dependencies, git, local state, build output, env files.
MUST_BE_EXCLUDED = (
    "node_modules/x/index.js",
    ".git/config",
    ".infra/pg/data",
    "dist/apps/x/main.js",
    "docker/.env",
    ".env",
    "coverage/x",
)


def dockerignore_patterns(path: Path) -> list[tuple[bool, str]]:
    patterns = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        pattern = line[1:].strip() if negate else line
        pattern = os.path.normpath(pattern).lstrip("/")
        patterns.append((negate, pattern))
    return patterns


def _glob_match(pattern: str, rel: str) -> bool:
    regex = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            regex += "(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            regex += ".*"
            i += 2
        elif pattern[i] == "*":
            regex += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            regex += "[^/]"
            i += 1
        else:
            regex += re.escape(pattern[i])
            i += 1
    # a pattern naming a directory excludes everything below it
    return re.fullmatch(regex + "(?:/.*)?", rel) is not None


def dockerignored(patterns: list[tuple[bool, str]], rel: str) -> bool:
    excluded = False
    for negate, pattern in patterns:
        if _glob_match(pattern, rel):
            excluded = not negate
    return excluded


def check_dockerignores(dockerfiles: set[Path], repo_root: Path) -> None:
    for dockerfile in sorted(dockerfiles):
        ignore = dockerfile.with_name(dockerfile.name + ".dockerignore")
        context = repo_root
        problems = []
        if not ignore.is_file():
            fail(ignore.name, "missing: the build context would include node_modules, .git and .env files")
            continue
        patterns = dockerignore_patterns(ignore)
        for rel in MUST_BE_EXCLUDED:
            if not dockerignored(patterns, rel):
                problems.append(f"{rel} is not excluded")
        for line in dockerfile.read_text(encoding="utf-8").splitlines():
            m = re.match(r"^\s*(COPY|ADD)\s+(.*)$", line)
            if not m or "--from=" in line:
                continue
            parts = [p for p in m.group(2).split() if not p.startswith("--")]
            for source in parts[:-1]:
                rel = os.path.normpath(source).lstrip("/")
                if not (context / rel).exists():
                    problems.append(f"COPY source {rel} does not exist")
                elif dockerignored(patterns, rel):
                    problems.append(f"COPY source {rel} is excluded")
        shown = dockerfile.relative_to(repo_root) if dockerfile.is_relative_to(repo_root) else dockerfile
        check(f"{shown} context: {ignore.name}", problems)
