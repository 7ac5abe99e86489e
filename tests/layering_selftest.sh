#!/usr/bin/env bash
# layering_check.sh must fail on each kind of violation: a small fixture tree (its own
# stage file: core < frontend (+ dialect frontend/pto) < model < program cli), built
# with the compiler into static libraries laid out as CMake lays them out, passes; each
# case plants one violation in a copy and expects a failure naming the place.
#
# Usage: tests/layering_selftest.sh CXX
set -euo pipefail
cxx=${1:-c++}
check=$(cd "$(dirname "$0")" && pwd)/layering_check.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# The fixture: every folder uses the one below through a header of it.
make_fixture() {
  local d=$1
  mkdir -p "$d"/{cmake,src/core,src/frontend/pto,src/model,src/cli}
  mkdir -p "$d"/include/redscope/{core,frontend,model}
  cat >"$d/cmake/stages.txt" <<'EOF'
stage   core
stage   frontend       core
dialect frontend/pto   frontend
stage   model          frontend
program cli            model
EOF
  echo 'int low();' >"$d/include/redscope/core/low.hpp"
  printf '#include "redscope/core/low.hpp"\nint low() { return 1; }\n' >"$d/src/core/low.cpp"
  echo 'int front();' >"$d/include/redscope/frontend/front.hpp"
  printf '#include "redscope/core/low.hpp"\n#include "redscope/frontend/front.hpp"\n%s\n' \
    'int front() { return low(); }' >"$d/src/frontend/front.cpp"
  echo 'int pto();' >"$d/src/frontend/pto/pto.hpp"
  printf '#include "frontend/pto/pto.hpp"\n#include <redscope/frontend/front.hpp>\n%s\n' \
    'int pto() { return front(); }' >"$d/src/frontend/pto/pto.cpp"
  echo 'int upper();' >"$d/include/redscope/model/upper.hpp"
  printf '#include <redscope/frontend/front.hpp>\n#include "redscope/model/upper.hpp"\n%s\n' \
    'int upper() { return front(); }' >"$d/src/model/upper.cpp"
  printf '#include "redscope/model/upper.hpp"\nint main() { return upper(); }\n' \
    >"$d/src/cli/main.cpp"
}

# Compiles the fixture into D/build as CMake would: one archive per stage, the
# program's objects under CMakeFiles/<target>.dir/src/.
build_fixture() {
  local d=$1 f obj
  mkdir -p "$d/build/CMakeFiles/redscope.dir/src/cli"
  for f in core/low frontend/front frontend/pto/pto model/upper cli/main; do
    obj=$d/build/obj/$f.cpp.o
    [[ $f == cli/* ]] && obj=$d/build/CMakeFiles/redscope.dir/src/$f.cpp.o
    mkdir -p "$(dirname "$obj")"
    "$cxx" -c -I"$d/include" -I"$d/src" "$d/src/$f.cpp" -o "$obj"
  done
  ar rcs "$d/build/libredscope_stage_core.a" "$d/build/obj/core/low.cpp.o"
  ar rcs "$d/build/libredscope_stage_frontend.a" "$d/build/obj/frontend/front.cpp.o" \
    "$d/build/obj/frontend/pto/pto.cpp.o"
  ar rcs "$d/build/libredscope_stage_model.a" "$d/build/obj/model/upper.cpp.o"
}

# expect NAME pass|fail PATTERN SETUP...: a fresh fixture, SETUP run in it, the check
# run on it (with its build); the outcome and a line matching PATTERN are expected.
expect() {
  local name=$1 want=$2 pattern=$3 d=$work/$1 out rc=0
  shift 3
  make_fixture "$d"
  (cd "$d" && eval "$*")
  build_fixture "$d"
  out=$(bash "$check" "$d" "$d/build" 2>&1) || rc=$?
  if [[ $want == pass && $rc != 0 ]] || [[ $want == fail && $rc == 0 ]] ||
    ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL $name: expected to $want with a line matching '$pattern'; got (rc $rc):"
    echo "$out" | sed 's/^/  | /'
    failures=$((failures + 1))
  else
    echo "ok   $name: $(grep -E -- "$pattern" <<<"$out" | head -1)"
  fi
}

expect clean pass '^layering: .* every symbol' true
expect quote-include-upward fail \
  '^src/core/low.cpp:3: folder .core. includes "redscope/model/upper.hpp" from .model.' \
  'echo "#include \"redscope/model/upper.hpp\"" >>src/core/low.cpp'
expect angle-include-upward fail \
  '^src/frontend/front.cpp:4: folder .frontend. includes <redscope/model/upper.hpp>' \
  'echo "#include <redscope/model/upper.hpp>" >>src/frontend/front.cpp'
expect symbol-upward fail \
  '^src/core/low.cpp: uses upper\(\), defined in src/model/upper.cpp .folder model, library redscope_stage_model., which folder core' \
  'printf "int upper();\nint low2() { return upper(); }\n" >>src/core/low.cpp'
expect program-symbol-upward fail \
  '^src/model/upper.cpp: uses helper\(\), defined in src/cli/main.cpp .folder cli, library program:cli.' \
  'printf "int helper();\nint upper2() { return helper(); }\n" >>src/model/upper.cpp' \
  '&& echo "int helper() { return 0; }" >>src/cli/main.cpp'
expect dialect-cycle-include fail \
  '^src/frontend/front.cpp:4: folder .frontend. includes "frontend/pto/pto.hpp" from .frontend/pto.' \
  'echo "#include \"frontend/pto/pto.hpp\"" >>src/frontend/front.cpp'
expect dialect-cycle-symbol fail \
  '^src/frontend/front.cpp: uses pto\(\), defined in src/frontend/pto/pto.cpp .folder frontend/pto, library redscope_stage_frontend.' \
  'printf "int pto();\nint front2() { return pto(); }\n" >>src/frontend/front.cpp'
expect dialect-cycle-allowed pass \
  '^allowed temporarily by cmake/stages.txt: src/frontend/front.cpp: 1 symbols of folder frontend/pto' \
  'printf "int pto();\nint front2() { return pto(); }\n" >>src/frontend/front.cpp' \
  '&& echo "allow src/frontend/front.cpp frontend/pto" >>cmake/stages.txt'
expect stale-allow fail \
  "^cmake/stages.txt: 'allow src/frontend/front.cpp frontend/pto' is no longer needed" \
  'echo "allow src/frontend/front.cpp frontend/pto" >>cmake/stages.txt'
expect outside-stage fail '^src/misc/x.hpp: not in a known stage folder .misc.' \
  'mkdir src/misc && echo "int x();" >src/misc/x.hpp'
expect stage-order-cycle fail \
  '^cmake/stages.txt:1: core uses model, which is not declared on an earlier line' \
  'sed -i "1s/.*/stage core model/" cmake/stages.txt'
# apart: model uses frontend, which uses core, but may not reach core itself.
expect apart-include fail \
  '^src/model/upper.cpp:4: folder .model. includes "redscope/core/low.hpp" from .core.' \
  'echo "apart model core" >>cmake/stages.txt' \
  '&& echo "#include \"redscope/core/low.hpp\"" >>src/model/upper.cpp'
expect apart-symbol fail \
  '^src/model/upper.cpp: uses low\(\), defined in src/core/low.cpp' \
  'echo "apart model core" >>cmake/stages.txt' \
  '&& printf "int low();\nint upper3() { return low(); }\n" >>src/model/upper.cpp'
expect private-header fail \
  '^src/model/upper.cpp:4: #include "core/secret.hpp" is a private header of .core.' \
  'echo "int secret();" >src/core/secret.hpp' \
  '&& echo "#include \"core/secret.hpp\"" >>src/model/upper.cpp'
# FOLDER/* in the stage file: every src/FOLDER/NAME/ is a stage with the line's uses,
# and as a use it means all of them; two siblings may not use each other.
plug_stages='sed -i "s|^program cli .*|stage plug/* model\nprogram cli plug/*|" cmake/stages.txt &&
  mkdir -p src/plug/a src/plug/b build && ar rcs build/libredscope_stage_plug_a.a &&
  ar rcs build/libredscope_stage_plug_b.a && echo "int b();" >src/plug/b/b.hpp'
expect wildcard-stages pass '^layering: .* every symbol' \
  "$plug_stages" '&& echo "int a();" >src/plug/a/a.hpp'
expect wildcard-sibling fail \
  '^src/plug/a/a.hpp:1: #include "plug/b/b.hpp" is a private header of .plug/b.' \
  "$plug_stages" '&& echo "#include \"plug/b/b.hpp\"" >src/plug/a/a.hpp'

if ((failures)); then
  echo "layering self-test: $failures case(s) did not behave"
  exit 1
fi
echo "layering self-test: the check fails on every planted violation and passes without"
