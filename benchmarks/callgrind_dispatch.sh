#!/usr/bin/env bash
# Instruction counts of one `a + b` (float32, shape (1,)) for NumPy and fasteager, with and
# without a recording tape: repeatable on a noisy machine (callgrind counts instructions).
# Usage: bash benchmarks/callgrind_dispatch.sh   (needs valgrind; run from the checkout)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=$(python3 -c 'import sys; print(sys.executable)')
PY=$(readlink -f "$PY")        # the real interpreter: valgrind does not follow shims
export PYTHONPATH=src
tmp=$(mktemp -d)
cat > "$tmp/np.py" <<'PYEOF'
import sys, numpy as np
a = np.ones(1, np.float32); b = np.ones(1, np.float32)
for _ in range(int(sys.argv[1])): a + b
PYEOF
cat > "$tmp/fe.py" <<'PYEOF'
import sys, fasteager as fe
a = fe.constant([1.0]); b = fe.constant([2.0]); n = int(sys.argv[1])
if sys.argv[2] == "tape":
    for _ in range(n // 100):
        with fe.GradientTape() as t:
            t.watch(a)
            for _ in range(100): a + b
elif sys.argv[2] == "plain":
    for _ in range(n): a + b
else:
    for _ in range(n): pass
PYEOF
ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$PY" "$@" 2>&1 \
       | grep -o "Collected : [0-9]*" | awk '{print $3}'; }
per() { echo $(( ($2 - $1) / 100000 )); }
base=$(per "$(ir "$tmp/fe.py" 20000 empty)" "$(ir "$tmp/fe.py" 120000 empty)")
np_=$(per "$(ir "$tmp/np.py" 20000)" "$(ir "$tmp/np.py" 120000)")
fe_=$(per "$(ir "$tmp/fe.py" 20000 plain)" "$(ir "$tmp/fe.py" 120000 plain)")
tape=$(per "$(ir "$tmp/fe.py" 20000 tape)" "$(ir "$tmp/fe.py" 120000 tape)")
echo "instructions per a+b (minus the empty loop's $base):"
echo "  numpy      $((np_ - base))"
echo "  fasteager  $((fe_ - base))"
echo "  fe + tape  $((tape - base))"
rm -rf "$tmp"
