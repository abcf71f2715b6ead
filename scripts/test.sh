#!/usr/bin/env bash
# Runs every test of svcgen. First installs the pinned validators the tests read outputs back with
# (python-dotenv, check-jsonschema, kubernetes-validate, yamllint, taplo) into a local venv, once.
#
#   scripts/test.sh            # all tests
#   scripts/test.sh dotenv     # extra arguments go to `cargo test`
#
# docker-compose v1 (Debian's package) is used by the compose tests when it is on PATH; .ci/run
# installs it. Without CI=true, tests whose tool is missing print "skipping" and pass.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${SVCGEN_VENV:-.venv}"
stamp="$venv/.svcgen-requirements"
if [ ! -x "$venv/bin/python" ] || ! cmp -s scripts/requirements.txt "$stamp"; then
  echo "installing pinned validators into $venv ..." >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/requirements.txt
  cp scripts/requirements.txt "$stamp"
fi
SVCGEN_VENV="$(cd "$venv" && pwd)"
export SVCGEN_VENV

cargo test "$@"
