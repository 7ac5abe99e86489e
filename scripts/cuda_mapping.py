#!/usr/bin/env python3
"""The C++ -> PTX mapping nvcc uses for CUDA atomics, measured (issue 44 item 8).

Writes one .cu file with one `extern "C" __global__` kernel per
(operation x memory_order x thread_scope) of libcu++'s cuda::atomic_ref<int>
and cuda::atomic_thread_fence, and per legacy intrinsic (atomicAdd ... with
their _block and _system forms, __threadfence*), compiles it with a single
`nvcc -ptx -arch=sm_90` call, and reads back each kernel's memory
instructions (ld, st, atom, red, fence, membar) other than the store of the
result to the output array. Prints a Markdown table:

    | operation | order | scope | nvcc's PTX |

  --check FILE   compare with the table of that Markdown file (the one whose
                 header is the header above); exit 1 naming every difference.
  --nvcc PATH    the compiler (default: $CUDA_HOME/bin/nvcc, then PATH).
Exit 77 when no nvcc is found (ctest: skipped), 2 on a usage or compile error
(including an --nvcc that is not executable).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ORDERS = ["relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst"]
SCOPES = ["thread", "block", "device", "system"]
# The orders C++ allows per operation ([atomics.types.operations]): a load
# takes no release order, a store no acquire order. Others: all six.
LOAD_ORDERS = ["relaxed", "consume", "acquire", "seq_cst"]
STORE_ORDERS = ["relaxed", "release", "seq_cst"]
RMW_OPS = ["exchange", "compare_exchange_strong", "compare_exchange_weak",
           "fetch_add", "fetch_sub", "fetch_and", "fetch_or", "fetch_xor",
           "fetch_min", "fetch_max"]
LEGACY_OPS = ["atomicAdd", "atomicSub", "atomicExch", "atomicCAS", "atomicMin",
              "atomicMax", "atomicAnd", "atomicOr", "atomicXor"]
LEGACY_SCOPES = [("", "(none)"), ("_block", "block"), ("_system", "system")]
HEADER = "| operation | order | scope | nvcc's PTX |"


def ref(scope):
    return f"cuda::atomic_ref<int, cuda::thread_scope_{scope}>(*x)"


def mo(order):
    return f"cuda::std::memory_order_{order}"


def atomic_ref_cases():
    """(operation, order, scope, body) for cuda::atomic_ref and the fence."""
    for scope in SCOPES:
        for order in LOAD_ORDERS:
            yield "load", order, scope, f"out[0] = {ref(scope)}.load({mo(order)});"
        for order in STORE_ORDERS:
            yield "store", order, scope, f"{ref(scope)}.store(1, {mo(order)});"
        for op in RMW_OPS:
            for order in ORDERS:
                if op.startswith("compare_exchange"):
                    body = (f"int e = 0; out[1] = {ref(scope)}.{op}(e, 1, {mo(order)});"
                            " out[0] = e;")
                else:
                    body = f"out[0] = {ref(scope)}.{op}(1, {mo(order)});"
                yield op, order, scope, body
        for order in ORDERS:
            body = f"cuda::atomic_thread_fence({mo(order)}, cuda::thread_scope_{scope});"
            yield "atomic_thread_fence", order, scope, body


def legacy_cases():
    """(operation, order, scope, body) for the intrinsics and plain accesses."""
    for op in LEGACY_OPS:
        for suffix, scope in LEGACY_SCOPES:
            args = "x, 0, 1" if op == "atomicCAS" else "x, 1"
            yield op + suffix, "—", scope, f"out[0] = {op}{suffix}({args});"
    # An unused result lets nvcc emit red instead of atom.
    for suffix, scope in LEGACY_SCOPES:
        yield f"atomicAdd{suffix} (result unused)", "—", scope, f"atomicAdd{suffix}(x, 1);"
    for name, scope in [("__threadfence_block", "block"), ("__threadfence", "device"),
                        ("__threadfence_system", "system")]:
        yield name + "()", "—", scope, f"{name}();"
    yield "plain load `*x`", "—", "—", "out[0] = *x;"
    yield "plain store `*x = 1`", "—", "—", "*x = 1;"
    yield "volatile load", "—", "—", "out[0] = *(volatile int *)x;"
    yield "volatile store", "—", "—", "*(volatile int *)x = 1;"


def all_cases():
    return list(atomic_ref_cases()) + list(legacy_cases())


def source(cases):
    lines = ["#include <cuda/atomic>", ""]
    for i, (_, _, _, body) in enumerate(cases):
        lines.append(f'extern "C" __global__ void k{i}(int *x, int *out) {{ {body} }}')
    return "\n".join(lines) + "\n"


def fail(message):
    """A usage or compile error: exit 2 (1 is kept for a changed mapping)."""
    sys.stderr.write(f"cuda_mapping.py: {message}\n")
    raise SystemExit(2)


def find_nvcc(given):
    if given:
        if not os.access(given, os.X_OK):
            fail(f"--nvcc {given}: not an executable file")
        return given
    home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    candidate = os.path.join(home, "bin", "nvcc")
    if os.access(candidate, os.X_OK):
        return candidate
    return shutil.which("nvcc")


def compile_ptx(nvcc, text):
    with tempfile.TemporaryDirectory() as tmp:
        cu = os.path.join(tmp, "mapping.cu")
        ptx = os.path.join(tmp, "mapping.ptx")
        with open(cu, "w", encoding="utf-8") as f:
            f.write(text)
        cmd = [nvcc, "-ptx", "-arch=sm_90", cu, "-o", ptx]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            fail("nvcc did not finish within 600 s")
        if done.returncode != 0:
            sys.stderr.write(done.stderr)
            fail(f"nvcc failed (exit {done.returncode})")
        with open(ptx, encoding="utf-8") as f:
            return f.read()


def entries(ptx):
    """Kernel name -> its body's instruction lines."""
    found = {}
    for m in re.finditer(r"\.entry\s+(\w+)\s*\((.*?)\)\s*\{(.*?)\n\}", ptx, re.S):
        found[m.group(1)] = [ln.strip() for ln in m.group(3).splitlines()]
    return found


MEMORY = re.compile(r"^(@%?\w+\s+)?(ld|st|atom|red|fence|membar)\b")


def memory_instructions(lines, name):
    """The memory instructions of one kernel, without the output array's
    accesses: registers loaded from param 1 (`out`), or converted from one
    (cvta), are the output array's addresses."""
    out_regs = set()
    kept = []
    for ln in lines:
        ln = ln.rstrip(";").strip()
        m = re.match(r"ld\.param\.u64\s+(%rd\d+),\s*\[" + name + r"_param_1\]", ln)
        if m:
            out_regs.add(m.group(1))
            continue
        m = re.match(r"cvta\.to\.global\.u64\s+(%rd\d+),\s*(%rd\d+)", ln)
        if m and m.group(2) in out_regs:
            out_regs.add(m.group(1))
            continue
        if not MEMORY.match(ln) or ln.startswith("ld.param"):
            continue
        addr = re.search(r"\[(%rd\d+)(\+\d+)?\]", ln)
        if ln.startswith("st.") and addr and addr.group(1) in out_regs:
            continue
        kept.append(ln.split()[0])  # the mnemonic: what the table compares
    return kept


def table(cases, ptx):
    bodies = entries(ptx)
    rows = [HEADER, "|---|---|---|---|"]
    for i, (op, order, scope, _) in enumerate(cases):
        name = f"k{i}"
        if name not in bodies:
            fail(f"no .entry {name} in nvcc's PTX")
        instrs = memory_instructions(bodies[name], name)
        ptx_text = "; ".join(f"`{s}`" for s in instrs) if instrs else "(nothing)"
        rows.append(f"| {op} | {order} | {scope} | {ptx_text} |")
    return rows


def table_in(path):
    """The rows of the table headed by HEADER in a Markdown file."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = [ln.rstrip("\n") for ln in f]
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    if HEADER not in lines:
        fail(f"{path}: no table headed '{HEADER}'")
    start = lines.index(HEADER)
    rows = []
    for ln in lines[start:]:
        if not ln.startswith("|"):
            break
        rows.append(ln.strip())
    return rows


def check(expected, measured, path):
    if expected == measured:
        print(f"cuda_mapping.py: {len(measured) - 2} rows equal {path}'s table")
        return 0
    gone = [r for r in expected if r not in measured]
    new = [r for r in measured if r not in expected]
    print(f"cuda_mapping.py: nvcc's mapping differs from {path}'s table:")
    for r in gone:
        print(f"  documented, not measured: {r}")
    for r in new:
        print(f"  measured, not documented: {r}")
    if not gone and not new:
        print("  the same rows in another order")
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", metavar="FILE")
    ap.add_argument("--nvcc", metavar="PATH")
    args = ap.parse_args()
    nvcc = find_nvcc(args.nvcc)
    if nvcc is None:
        print("cuda_mapping.py: SKIP: no nvcc (--nvcc, $CUDA_HOME/bin, PATH)")
        return 77
    cases = all_cases()
    measured = table(cases, compile_ptx(nvcc, source(cases)))
    if args.check:
        return check(table_in(args.check), measured, args.check)
    print("\n".join(measured))
    return 0


if __name__ == "__main__":
    sys.exit(main())
