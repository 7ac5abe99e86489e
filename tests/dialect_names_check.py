#!/usr/bin/env python3
"""No dialect's name outside its folder, the registry and the tests.

A dialect is a folder and a registry row (docs/architecture.md): the stages
below and beside the registry must not know which dialects exist. This check
fails, with file:line, on an identifier of C++ code (comments and string
literals removed) one of whose words is a dialect folder's name
(src/dialects/NAME: `pto`, `sass`), in any case, anywhere but src/dialects/,
include/redscope/dialects/, src/registry/, include/redscope/registry/ and
tests/. Words are split at underscores, digits and case changes, so
pto_program and SassSm30 name a dialect and InterruptOnStop does not.

Usage: tests/dialect_names_check.py [REPO_ROOT]
       tests/dialect_names_check.py --selftest   (a planted tree: fails where it must)
"""
import pathlib
import re
import sys

ALLOWED = ("src/dialects/", "include/redscope/dialects/", "src/registry/",
           "include/redscope/registry/")
# Comments and literals (raw strings first), kept as blanks so lines stay true.
LEXEME = re.compile(r'R"(?P<d>[^(\s]*)\(.*?\)(?P=d)"|"(?:\\.|[^"\\\n])*"|'
                    r"'(?:\\.|[^'\\\n])*'|//[^\n]*|/\*.*?\*/", re.S)
IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
# An identifier's words: split at underscores, digits and case changes.
PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def blank(m):
    return re.sub(r"[^\n]", " ", m.group(0))


def check(root):
    """The offending lines of the tree at `root`, as messages."""
    names = sorted(p.name for p in (root / "src/dialects").iterdir() if p.is_dir())
    out = []
    files = sorted(list(root.glob("src/**/*.[ch]pp")) + list(root.glob("include/**/*.[ch]pp")))
    for path in files:
        rel = path.relative_to(root).as_posix()
        if rel.startswith(ALLOWED):
            continue
        code = LEXEME.sub(blank, path.read_text(encoding="utf-8"))
        for n, line in enumerate(code.split("\n"), 1):
            for m in IDENT.finditer(line):
                if any(p.lower() in names for p in PART.findall(m.group(0))):
                    out.append(f"{rel}:{n}: '{m.group(0)}' names a dialect "
                               f"({', '.join(names)}) outside its folder and the registry")
    return names, out


def selftest():
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        root = pathlib.Path(d)
        (root / "src/dialects/pto").mkdir(parents=True)
        (root / "src/core").mkdir(parents=True)
        (root / "src/dialects/pto/p.cpp").write_text("int pto_inside_its_folder;\n")
        (root / "src/core/ok.cpp").write_text(
            '// pto in a comment\nconst char* s = "pto in a string";\n'
            'const char* r = R"x(pto )" raw)x";\nint InterruptOnStop;\n')
        (root / "src/core/bad.cpp").write_text("int a;\nbool has_pto_program;\nint PTOKind;\n")
        _, out = check(root)
        want = ["src/core/bad.cpp:2: 'has_pto_program'", "src/core/bad.cpp:3: 'PTOKind'"]
        got = [o.split(" names")[0] for o in out]
        if got != want:
            print("dialect names self-test: expected", want, "got", out)
            return 1
    print("dialect names self-test: planted names found, comments, strings and "
          "InterruptOnStop left alone")
    return 0


def main():
    if sys.argv[1:] == ["--selftest"]:
        return selftest()
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent)
    names, out = check(root)
    for line in out:
        print(line)
    if out:
        return 1
    print(f"dialect names: none of {', '.join(names)} outside src/dialects, the registry "
          "and tests")
    return 0


sys.exit(main())
