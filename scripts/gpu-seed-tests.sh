#!/usr/bin/env bash
# Runs NVIDIA's own cuda.coop runtime tests (the seed's) against cuda.coop built from
# source on the GPU machine (scripts/gpu-python-env.sh). Those tests are never in this
# repository: they sit in .seedtests/ (excluded in .git/info/exclude; scripts/seed-tests/README.txt
# names each file and the commit it comes from). The harness is ours,
# scripts/seed-tests/conftest.py, copied in on every run; its compile-only shim is for
# machines without a GPU (COOP_SEED_SHIM=1 python3 -m pytest .seedtests); here
# COOP_SEED_SHIM=0 keeps it off and every kernel really runs.
#   run(command="scripts/gpu-seed-tests.sh", carry=[".whl", ".deps/<the two .deb files>", ".seedtests"])
# Logs: $OUT/seed_tests.log, $OUT/seed_tests.xml (JUnit); ends with passed/failed per file.
#   COOP_SEED_WORKERS=12  COOP_SEED_PATHS=.seedtests
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/gpu-results}"
compgen -G ".seedtests/test_*.py" >/dev/null || { echo "carry .seedtests (NVIDIA's tests: scripts/seed-tests/README.txt)" >&2; exit 1; }
cp scripts/seed-tests/conftest.py .seedtests/conftest.py
source scripts/gpu-python-env.sh
export COOP_SEED_SHIM=0
status=0
python3 -m pytest ${COOP_SEED_PATHS:-.seedtests} -q -p no:cacheprovider -n "${COOP_SEED_WORKERS:-12}" \
  --junitxml "$OUT/seed_tests.xml" 2>&1 | tee "$OUT/seed_tests.log" || status=$?
python3 - "$OUT/seed_tests.xml" <<'EOF' | tee -a "$OUT/seed_tests.log"
import collections, sys, xml.etree.ElementTree as ET
counts = collections.defaultdict(collections.Counter)
for case in ET.parse(sys.argv[1]).iter("testcase"):
    outcome = next((c.tag for c in case if c.tag in ("failure", "error", "skipped")), "passed")
    counts[case.get("classname", "?").rsplit(".", 1)[-1]][{"failure": "failed", "error": "failed"}.get(outcome, outcome)] += 1
total = sum(counts.values(), collections.Counter())
print("== seed tests on the GPU: passed / failed / skipped per file")
for name, c in sorted(counts.items()):
    print(f"  {name:45s} {c['passed']:4d} {c['failed']:4d} {c['skipped']:4d}")
print(f"  {'total':45s} {total['passed']:4d} {total['failed']:4d} {total['skipped']:4d}")
EOF
exit "$status"
