#!/usr/bin/env bash
# Whole-process budgets on hostile inputs (issue 28): under --timeout T
# --max-memory M every run ends within 2T + 5 s and a peak resident size of
# 2M, with a timeout or memory error or a located input error, never a
# signal. Each input is generated here; the run is measured by python's
# os.wait4 (wall time, ru_maxrss of that one child).
# Usage: cli_budget.sh REDSCOPE WORKDIR
set -euo pipefail
REDSCOPE=$1
WORK=$2/cli_budget
T=3
M=500
rm -rf "$WORK"
mkdir -p "$WORK"

python3 - "$WORK" <<'EOF'
import sys
w = sys.argv[1]
def write(name, text):
    with open(f"{w}/{name}", "w") as f:
        f.write(text)
def stores(n):
    rows = [" st.relaxed.gpu.global.u32 [x], 1 | ld.relaxed.gpu.global.u32 r0, [x] ;"]
    rows += [f" st.relaxed.gpu.global.u32 [x], {i + 2} | ;" for i in range(n - 1)]
    return ("PTX stores\n{\nglobal u32 x = 0;\n}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n" +
            "\n".join(rows) + "\nexists (P1:r0 == 1)\n")
write("stores-8000.litmus", stores(8000))
write("stores-20000.litmus", stores(20000))
write("init-100000.litmus", "PTX inits\n{\n" +
      "".join(f"global u32 x{i} = 0;\n" for i in range(100000)) +
      "}\n P0@cta 0,gpu 0 ;\n st.relaxed.gpu.global.u32 [x0], 1 ;\nexists (x0 == 1)\n")
n = 300000
write("threads-300000.litmus", "PTX threads\n{\nglobal u32 x = 0;\n}\n " +
      " | ".join(f"P{i}" for i in range(n)) + " ;\n st.relaxed.gpu.global.u32 [x], 1 " +
      "| " * (n - 1) + ";\nexists (x == 1)\n")
write("offset-1MiB.litmus", "PTX far\n{\n}\n P0@cta 0,gpu 0 ;\n"
      " st.relaxed.gpu.global.u32 [x+1048576], 1 ;\nexists (x[0] == 0)\n")
write("alias-chain-20000.litmus", "PTX aliases\n{\nglobal u32 a0 = 0;\n" +
      "".join(f"a{i} @ generic aliases a{i - 1};\n" for i in range(1, 20000)) +
      "}\n P0@cta 0,gpu 0 ;\n" + " st.relaxed.gpu.u32 [a19999], 1 ;\n" * 2000 +
      "exists (a0 == 1)\n")
gpus = ", ".join(str(g) for g in range(64))
write("bulk-64-replicas.litmus", "PTX bulk\n{\n" +
      f"  multimem({gpus}) u32 m[64] = {{{', '.join(['0'] * 64)}}};\n" +
      f"  shared u32 src[64] = {{{', '.join(str(i + 1) for i in range(64))}}};\n" +
      "}\n P0@cta 0,gpu 0 ;\n multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group"
      ".add.u32 [m], [src], 256 ;\nforall (m_gpu0[0] == 1)\n")
EOF

# run NAME EXPECT: EXPECT is a regular expression the output must match.
fail=0
run() {
  local name=$1 expect=$2
  python3 - "$REDSCOPE" "$WORK/$name" "$T" "$M" "$expect" <<'EOF' || fail=1
import os, re, subprocess, sys, time
redscope, path, t, m, expect = sys.argv[1:]
limit_s, limit_mb = 2 * float(t) + 5, 2 * int(m)
start = time.monotonic()
with open(path + ".out", "wb") as f:
    p = subprocess.Popen([redscope, "run", "--timeout", t, "--max-memory", m, path],
                         stdout=f, stderr=subprocess.STDOUT)
# wait4 gives this one child's peak resident size; past 4x the bound the
# run is killed (a hang).
while True:
    pid, status, usage = os.wait4(p.pid, os.WNOHANG)
    if pid:
        break
    if time.monotonic() - start > 4 * limit_s:
        p.kill()
    time.sleep(0.05)
p.returncode = 0  # reaped here, not by subprocess
secs = time.monotonic() - start
peak_mb = usage.ru_maxrss / 1024
text = open(path + ".out", errors="replace").read()
name = os.path.basename(path)
problems = []
if os.WIFSIGNALED(status):
    problems.append(f"ended by signal {os.WTERMSIG(status)}")
elif os.WEXITSTATUS(status) > 3:
    problems.append(f"exit status {os.WEXITSTATUS(status)}")
if secs > limit_s:
    problems.append(f"{secs:.1f} s, over 2T + 5 = {limit_s:g} s")
if peak_mb > limit_mb:
    problems.append(f"peak {peak_mb:.0f} MiB, over 2M = {limit_mb} MiB")
if not re.search(expect, text):
    problems.append(f"output does not match /{expect}/: {text[:300]!r}")
print(f"{'FAIL' if problems else 'ok  '} {name}: {secs:.1f} s, {peak_mb:.0f} MiB"
      + ("".join(f"\n     {x}" for x in problems)))
sys.exit(1 if problems else 0)
EOF
}

run stores-8000.litmus 'error: (timeout|memory)|Test stores (Allowed|Forbidden)'
run stores-20000.litmus 'error: (timeout|memory)'
run init-100000.litmus 'init-100000.litmus:[0-9]+:[0-9]+: error: more than 65536 memory cells'
run threads-300000.litmus 'error: (timeout|memory)|Test threads (Allowed|Forbidden)'
run offset-1MiB.litmus 'offset-1MiB.litmus:5:[0-9]+: error: offset 1048576 .*at most 4096 cells'
run alias-chain-20000.litmus 'error: (timeout|memory)|Test aliases (Allowed|Forbidden)'
run bulk-64-replicas.litmus 'error: (timeout|memory)|Test bulk (Allowed|Forbidden)'
exit $fail
