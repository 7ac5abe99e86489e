#!/usr/bin/env python3
"""Writes the planted PTX modules of this folder: nvcc 13's own PTX for each
NAME.litmus, with one change planted (the PLANTS table below), as NAME.ptx.

    python3 make_ptx.py [--redscope PATH] [--check] [NAME...]

nvcc's PTX is taken as `redscope run` compiles it (docs/cuda.md "What nvcc is
given": one kernel per thread, the global locations then `int *__out`; nvcc
-ptx -rdc=true -arch=sm_90 -lineinfo): redscope is given a stand-in nvcc that
runs the real one and keeps its whole module. The module is then made the
convention of a module given whole (`.entry P0(.param .u64 P0_param_0, ...)`:
the kernels' `redscope_t0_` prefix dropped), the `.file` of the test named by
the test's file name, and the planted line changed (a comment above it says
what nvcc wrote). Each module is checked by `ptxas -arch=sm_90`.

--check also runs `redscope run` on each test with a stand-in nvcc that
returns the planted module, so the planted PTX's outcomes are printed beside
nvcc's (the PTX side only; the source side is `redscope cuda-check`'s).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# NAME: (thread, nvcc's instruction as written, occurrence of it in the
# thread (1-based), the planted instruction: None deletes the line; a text
# after "\n" is a line inserted after the kept one).
PLANTS = {
    "MP+rel-acq.dev-2cta+st.relaxed":
        ("P0", "st.release.gpu.b32 [%rd2],%r2;", 1, "st.relaxed.gpu.b32 [%rd2],%r2;"),
    "MP+rel-acq.dev-2cta+ld.relaxed":
        ("P1", "ld.acquire.gpu.b32 %r1,[%rd1];", 1, "ld.relaxed.gpu.b32 %r1,[%rd1];"),
    "SB+fences.sc.dev-2cta+fence.acq_rel":
        ("P0", "fence.sc.gpu;", 1, "fence.acq_rel.gpu;"),
    "SB+sc.dev-2cta+fence.acq_rel":
        ("P0", "fence.sc.gpu;", 2, "fence.acq_rel.gpu;"),
    "MP+rel-acq.dev-2cta+st.cta":
        ("P0", "st.release.gpu.b32 [%rd2],%r2;", 1, "st.release.cta.b32 [%rd2],%r2;"),
    "LU+fetch_add.dev-2cta+atom.cta":
        ("P0", "atom.add.relaxed.gpu.s32 %r1,[%rd1],%r2;", 1,
         "atom.add.relaxed.cta.s32 %r1,[%rd1],%r2;"),
    "SB+sc-st+sc-fetch_add.dev-2cta+no-fence":
        ("P0", "fence.sc.gpu;", 2, None),
    "MP+sc-exch+acq.dev-2cta+no-fence":
        ("P0", "fence.sc.gpu;", 1, None),
    "MP+rel-relaxed.dev-2cta+ld.acquire":
        ("P1", "ld.relaxed.gpu.b32 %r1,[%rd1];", 1, "ld.acquire.gpu.b32 %r1,[%rd1];"),
    "MP+rel-acq.block-1cta+st.gpu":
        ("P0", "st.release.cta.b32 [%rd2],%r2;", 1, "st.release.gpu.b32 [%rd2],%r2;"),
    "SB+relaxed.dev-2cta+fence.sc":
        ("P0", "st.relaxed.gpu.b32 [%rd1],%r1;", 1,
         "st.relaxed.gpu.b32 [%rd1],%r1;\nfence.sc.gpu;"),
    "SB+sc.dev-2cta+st.release":
        ("P0", "st.relaxed.gpu.b32 [%rd1],%r1;", 1, "st.release.gpu.b32 [%rd1],%r1;"),
    "MP+rel-acq.block-2cta+st.relaxed":
        ("P0", "st.release.cta.b32 [%rd2],%r2;", 1, "st.relaxed.cta.b32 [%rd2],%r2;"),
}

WRAPPER = """#!/bin/sh
# The real nvcc, keeping a copy of the module it writes (-o FILE).
"{nvcc}" "$@"; rc=$?
out=""; prev=""
for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
[ -n "$out" ] && [ -f "$out" ] && cp "$out" "{keep}"
exit $rc
"""

STAND_IN = """#!/bin/sh
# Answers --version as the real nvcc, else writes the planted module (-o FILE).
for a in "$@"; do [ "$a" = "--version" ] && exec "{nvcc}" --version; done
out=""; prev=""
for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
cp "{module}" "$out"
"""


def cuda_bin(tool):
    home = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
    path = os.path.join(home, "bin", tool)
    return path if os.path.exists(path) else (shutil.which(tool) or path)


def script(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)


def nvcc_module(redscope, litmus, tmp):
    keep = os.path.join(tmp, "nvcc.ptx")
    wrapper = os.path.join(tmp, "nvcc-keep.sh")
    script(wrapper, WRAPPER.format(nvcc=cuda_bin("nvcc"), keep=keep))
    r = subprocess.run([redscope, "run", "-j1", "--no-cache", "--nvcc", wrapper, litmus],
                       capture_output=True, text=True)
    if not os.path.exists(keep):
        sys.exit(f"{litmus}: nvcc wrote no module\n{r.stdout}{r.stderr}")
    with open(keep) as f:
        text = f.read()
    os.remove(keep)
    return text


def entry_span(lines, thread):
    start = next(i for i, l in enumerate(lines)
                 if re.search(rf"\.entry (redscope_t0_)?{thread}\(", l))
    end = next(i for i in range(start, len(lines)) if lines[i] == "}")
    return start, end


def plant(text, name):
    thread, old, nth, new = PLANTS[name]
    lines = text.split("\n")
    start, end = entry_span(lines, thread)
    hits = [i for i in range(start, end) if lines[i].strip() == old]
    if len(hits) < nth:
        sys.exit(f"{name}: {thread} has {len(hits)} '{old}', not {nth}")
    i = hits[nth - 1]
    indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
    if new is None:
        lines[i:i + 1] = [f"{indent}// planted: deleted nvcc's {old}"]
        diff = f"{thread}: - {old}"
    elif "\n" in new:
        kept, added = new.split("\n", 1)
        assert kept == old
        lines[i + 1:i + 1] = [f"{indent}// planted: added the next line", indent + added]
        diff = f"{thread}: + {added} (after {old})"
    else:
        lines[i:i + 1] = [f"{indent}// planted: nvcc wrote {old}", indent + new]
        diff = f"{thread}: {old} -> {new}"
    return "\n".join(lines), diff


def whole_module(text, name):
    """The convention of a module given whole: kernels named as the threads,
    the test's `.file` by its file name, the translation unit by its own."""
    text = text.replace("redscope_t0_", "")
    text = re.sub(r'(\.file\s+\d+\s+")[^"]*/redscope_t0\.litmus"', rf'\g<1>{name}.litmus"', text)
    text = re.sub(r'(\.file\s+\d+\s+")[^"]*/tests\.cu"', r'\g<1>tests.cu"', text)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--redscope", default=shutil.which("redscope")
                    or os.path.join(HERE, "..", "..", "..", "build", "redscope"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    names = a.names or sorted(PLANTS)
    with tempfile.TemporaryDirectory(prefix="planted-") as tmp:
        for name in names:
            litmus = os.path.join(HERE, name + ".litmus")
            raw = nvcc_module(a.redscope, litmus, tmp)
            planted, diff = plant(raw, name)
            out = os.path.join(HERE, name + ".ptx")
            with open(out, "w") as f:
                f.write(f"// nvcc 13's PTX for {name}.litmus (-arch=sm_90), one change planted:\n"
                        f"//   {diff}\n" + whole_module(planted, name))
            r = subprocess.run([cuda_bin("ptxas"), "-arch=sm_90", out, "-o", os.devnull],
                               capture_output=True, text=True)
            print(f"{name}.ptx  {diff}  ptxas: {'ok' if r.returncode == 0 else r.stderr}")
            if a.check:
                module = os.path.join(tmp, "planted.ptx")
                with open(module, "w") as f:
                    f.write(planted)
                stand_in = os.path.join(tmp, "nvcc-planted.sh")
                script(stand_in, STAND_IN.format(nvcc=cuda_bin("nvcc"), module=module))
                for label, nvcc in (("nvcc", None), ("planted", stand_in)):
                    cmd = [a.redscope, "run", "-j1", "--no-cache", litmus]
                    if nvcc:
                        cmd[3:3] = ["--nvcc", nvcc]
                    res = subprocess.run(cmd, capture_output=True, text=True).stdout
                    obs = re.search(r"^Observation \S+ (\w+)", res, re.M)
                    print(f"    {label:8} {obs.group(1) if obs else res.strip()}")


if __name__ == "__main__":
    main()
