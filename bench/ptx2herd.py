#!/usr/bin/env python3
"""Writes a PTX litmus test (redscope's / Dat3M's syntax) as a herd7 LISA test
annotated per bench/herd/ptx.bell, for bench/compare-herd.sh.

    bench/ptx2herd.py IN.litmus > OUT.litmus
    bench/ptx2herd.py --out-dir DIR IN.litmus...

The second form converts many tests in one process (a Python start-up can
cost a second): each IN is written to DIR/NAME, NAME being IN's path with
'/' as '_'; a refused IN leaves DIR/NAME.refused holding the reason instead.
It exits 2 when it refused any.

Covers what the benchmark's families and plain litmus tests use: integer
ld/st (weak, or .relaxed/.acquire/.release with a scope), atom and red with
add/exch/and/or/xor (.sem and .scope; red's dropped result goes to a spare
register), fence.sc and fence.acq_rel with a scope, `P0@cta C,gpu G`
placement (the scope tree), an init block of integer locations, `locations`
and the final condition. Anything else (floats, cas, branches, proxies,
barriers, shared memory) is refused with the line it is on (exit 2): a test
herd7 would read differently is worse than none.
"""
import os
import re
import sys

SEM = {"weak": "weak", "relaxed": "rlx", "acquire": "acq", "release": "rel",
       "acq_rel": "acq_rel", "sc": "sc"}
SCOPES = {"cta", "gpu", "sys"}
RMW_OPS = {"add", "exch", "and", "or", "xor"}


class Refused(Exception):
    pass


def parse_qualifiers(mnemonic):
    """ld.relaxed.gpu.global.u32 -> ('ld', {'relaxed','gpu','global','u32'})."""
    head, *quals = mnemonic.split(".")
    return head, quals


def annotation(quals, default_sem):
    sem = [q for q in quals if q in SEM or q == "volatile"]
    scope = [q for q in quals if q in SCOPES]
    if "volatile" in sem:  # .volatile = .relaxed.sys (PTX ISA 8.7.1.3)
        return "rlx,sys"
    sem_name = SEM[sem[0]] if sem else default_sem
    if sem_name == "weak":
        if scope:
            raise Refused("a weak access takes no scope")
        return "weak"
    return f"{sem_name},{scope[0] if scope else 'gpu'}"


def check_quals(quals):
    """Floats, .shared, vectors, proxies and cache hints are not ported."""
    for q in quals:
        if q in SEM or q in SCOPES or q in ("global", "volatile") or re.fullmatch(r"[usb]\d+", q):
            continue
        raise Refused(f"qualifier .{q} has no herd7 counterpart here")


def address(text):
    m = re.fullmatch(r"\[?\s*([A-Za-z_]\w*)\s*\]?", text.strip())
    if not m:
        raise Refused(f"address {text!r}: only a location name")
    return m.group(1)


def value(text, regs):
    text = text.strip()
    if re.fullmatch(r"-?\d+", text):
        return text
    if text in regs:
        return regs[text]
    raise Refused(f"operand {text!r}: only integers and registers")


def register(name, regs):
    if name not in regs:
        regs[name] = name if re.fullmatch(r"r\d+", name) else f"r{100 + len(regs)}"
    return regs[name]


def instruction(text, regs):
    """One PTX instruction -> one LISA instruction ('' for an empty cell)."""
    text = text.strip().rstrip(";").strip()
    if not text:
        return ""
    mnemonic, _, rest = text.partition(" ")
    args = [a.strip() for a in rest.split(",")] if rest.strip() else []
    head, quals = parse_qualifiers(mnemonic)
    check_quals([q for q in quals if q not in RMW_OPS])
    if head == "ld" and len(args) == 2:
        return f"r[{annotation(quals, 'weak')}] {register(args[0], regs)} {address(args[1])}"
    if head == "st" and len(args) == 2:
        return f"w[{annotation(quals, 'weak')}] {address(args[0])} {value(args[1], regs)}"
    if head == "fence" and not args and ("sc" in quals or "acq_rel" in quals):
        return f"f[{annotation(quals, 'rlx')}]"
    if head in ("atom", "red"):
        ops = [q for q in quals if q in RMW_OPS]
        if len(ops) != 1:
            raise Refused(f"{mnemonic}: only {', '.join(sorted(RMW_OPS))}")
        if head == "atom" and len(args) == 3:
            dst, addr, operand = args
        elif head == "red" and len(args) == 2:
            addr, operand = args
            dst = f"%spare{len(regs)}"  # red's old value, kept nowhere
        else:
            raise Refused(f"{mnemonic}: unexpected operands")
        r = register(dst, regs)
        v = value(operand, regs)
        op = v if ops[0] == "exch" else f"({ops[0]} {r} {v})"
        return f"rmw[{annotation(quals, 'rlx')}] {r} {op} {address(addr)}"
    raise Refused(f"{mnemonic}: not ported to herd7's LISA")


def condition(text, thread_regs):
    """`P1:r0 == 1 /\\ x == 2` -> `1:r0=1 /\\ x=2` (registers renamed)."""
    def reg(m):
        t, r = int(m.group(1)), m.group(2)
        if r not in thread_regs[t]:
            raise Refused(f"P{t}:{r} is never written")
        return f"{t}:{thread_regs[t][r]}"
    text = re.sub(r"P(\d+):([A-Za-z_%]\w*)", reg, text)
    return re.sub(r"==", "=", text)


def scope_tree(places):
    """[(thread, cta, gpu)] -> `(sys (gpu (cta P0) (cta P1)) (gpu ...))`."""
    gpus = {}
    for t, cta, gpu in places:
        gpus.setdefault(gpu, {}).setdefault(cta, []).append(f"P{t}")
    return "(sys " + " ".join(
        "(gpu " + " ".join(f"(cta {' '.join(ts)})" for ts in ctas.values()) + ")"
        for ctas in gpus.values()) + ")"


def convert(src):
    lines = src.splitlines()
    if not lines or not lines[0].startswith("PTX "):
        raise Refused("line 1: not a PTX litmus test")
    name = lines[0].split()[1]
    body = "\n".join(lines[1:])
    init_m = re.search(r"\{(.*?)\}", body, re.S)
    if not init_m:
        raise Refused("no init block")
    init, reg_init = [], []
    for decl in filter(None, (d.strip() for d in init_m.group(1).split(";"))):
        r = re.fullmatch(r"P(\d+):([A-Za-z_]\w*)\s*=\s*(-?\d+)", decl)
        if r:  # a register's initial value: kept until the threads are known
            reg_init.append((int(r.group(1)), r.group(2), r.group(3)))
            continue
        m = re.fullmatch(r"(?:global\s+[usb]\d+\s+)?([A-Za-z_]\w*)\s*=\s*(-?\d+)", decl)
        if not m:
            raise Refused(f"init {decl!r}: only integer locations and registers")
        init.append(f"{m.group(1)}={m.group(2)};")
    rest = body[init_m.end():].strip().splitlines()
    header = rest[0].strip().rstrip(";")
    places = []
    for i, cell in enumerate(header.split("|")):
        m = re.fullmatch(r"\s*P(\d+)@cta\s+(\d+)\s*,\s*gpu\s+(\d+)\s*", cell)
        if not m or int(m.group(1)) != i:
            raise Refused(f"thread header {cell.strip()!r}: P{i}@cta C,gpu G")
        places.append((i, int(m.group(2)), int(m.group(3))))
    regs = [dict() for _ in places]
    for t, reg, v in reg_init:
        if t >= len(places):
            raise Refused(f"init P{t}:{reg}: no thread P{t}")
        init.append(f"{t}:{register(reg, regs[t])}={v};")
    code, tail = [], []
    for line in rest[1:]:
        if tail or not line.strip().endswith(";") or line.lstrip().startswith(("exists", "locations", "forall", "~exists")):
            tail.append(line)
            continue
        cells = line.strip()[:-1].split("|")
        if len(cells) != len(places):
            raise Refused(f"row {line.strip()!r}: {len(places)} cells expected")
        code.append([instruction(c, regs[t]) for t, c in enumerate(cells)])
    out = [f"LISA {name}", "{", " ".join(init), "}"]
    table = [[f"P{t}" for t, _, _ in places]] + code
    widths = [max(len(row[t]) for row in table) for t in range(len(places))]
    for row in table:
        out.append(" " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " ;")
    out.append("scopes: " + scope_tree(places))
    for line in tail:
        if line.strip():
            out.append(condition(line, regs))
    return "\n".join(out) + "\n"


def convert_file(path):
    with open(path) as f:
        return convert(f.read())


def out_name(out_dir, path):
    """Where --out-dir writes IN: DIR/NAME, NAME being IN's path with '/' as '_'."""
    return os.path.join(out_dir, path.replace("/", "_").lstrip("_"))


def convert_many(out_dir, paths):
    status = 0
    for path in paths:
        name = out_name(out_dir, path)
        try:
            text = convert_file(path)
        except Refused as e:
            with open(name + ".refused", "w") as f:
                f.write(f"{path}: ptx2herd: {e}\n")
            status = 2
            continue
        with open(name, "w") as f:
            f.write(text)
    return status


def main():
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "--out-dir":
        return convert_many(args[1], args[2:])
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(args) == 1 else 2
    try:
        sys.stdout.write(convert_file(args[0]))
    except Refused as e:
        print(f"{args[0]}: ptx2herd: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
