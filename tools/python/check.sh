#!/usr/bin/env bash
# The Python packages' checks, in the environment of python/requirements/dev.txt (built once per machine).
#   tools/python/check.sh lint          ruff (lint and format) and mypy, configured in python/pyproject.toml, and
#                                       no source file (tests aside) over 350 lines, here, in docker/validate or in tools/ci
#   tools/python/check.sh test [XML]    pytest over python/tests, a JUnit report at XML for the run's summary
#   tools/python/check.sh pytest ARGS   pytest with these arguments (the integration suites' service tests)
# The tests that need a running service (the labeller, the eval-runner's simulator) skip under `test`; the
# integration suites that start the service run them with `pytest`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# A report path is the caller's, relative to where it was called from.
report=${2:+$(realpath -m "$2")}
python=$(bash "$ROOT/tools/python/venv.sh" dev)
bin=$(dirname "$python")
cd "$ROOT/python"
case ${1:?usage: check.sh lint|test [junit.xml]|pytest ARGS} in
  lint)
    "$bin/ruff" check .
    "$bin/ruff" format --check .
    # The CI's own Python (tools/ci), under the packages' rules.
    "$bin/ruff" check --config pyproject.toml ../tools/ci
    "$bin/ruff" format --check --config pyproject.toml ../tools/ci
    "$bin/mypy"
    # The project's rule: no production source file over 350 lines (the tests are exempt). docker/validate's compose
    # checks are production Python outside python/.
    (cd "$ROOT" && find python docker/validate tools/ci -name '*.py' -not -path 'python/tests/*' -not -path 'python/.*' \
      -exec wc -l {} +) |
      awk '$2 != "total" && $1 > 350 { print $2 ": " $1 " lines, over the 350 allowed"; over = 1 } END { exit over }' >&2
    ;;
  test) "$python" -m pytest -q ${report:+--junitxml "$report"} ;;
  pytest) "$python" -m pytest "${@:2}" ;;
  *) echo "usage: check.sh lint|test [junit.xml]|pytest ARGS" >&2; exit 2 ;;
esac
