#!/usr/bin/env bash
# Each pipeline stage may include only its own headers and those of the stages
# below it: the same order in which CMakeLists.txt links the stage libraries
# (docs/architecture.md, "Source layout"). A stage reaching upwards fails here,
# with the file and line, before it turns into a link cycle.
#
# Usage: tests/layering_check.sh [REPO_ROOT]
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"

# Stage -> the stages it may include (itself included). "engine" means the
# engine folder's own headers, not its sub-engines.
declare -A allowed=(
  [core]="core"
  [frontend]="core frontend frontend/ptx frontend/nvtest"
  [frontend/ptx]="core frontend frontend/ptx"
  [frontend/nvtest]="core frontend frontend/nvtest"
  [events]="core frontend events"
  [model]="core frontend events model"
  [results]="core frontend events model results"
  [engine]="core frontend events model results engine"
  [engine/z3]="core frontend events model results engine engine/z3"
  [engine/enumerate]="core frontend events model results engine engine/enumerate"
  [engine/machine]="core frontend events model results engine engine/machine"
  [dialects/sass]="core frontend events model results engine engine/z3 engine/enumerate
                   engine/machine dialects/sass"
  [dialects/pto]="core frontend events model results engine engine/z3 engine/enumerate
                  engine/machine dialects/pto"
  [registry]="core frontend frontend/nvtest events model results engine engine/z3
              engine/enumerate engine/machine dialects/sass dialects/pto registry"
  [report]="core frontend events model results report"
  [analysis]="core frontend events model results engine engine/z3 engine/machine registry report
              analysis"
  [driver]="core frontend events model results engine engine/z3 engine/enumerate engine/machine
            registry report analysis driver"
  [cli]="core frontend events model results engine engine/z3 engine/enumerate engine/machine
         registry report analysis driver cli"
)

# The stage a file belongs to: its folder under src/ or include/redscope/.
stage_of() {
  local dir
  dir=$(dirname "${1#src/}")
  dir=${dir#include/redscope/}
  echo "$dir"
}

status=0
while IFS= read -r file; do
  stage=$(stage_of "$file")
  if [[ -z ${allowed[$stage]+x} ]]; then
    echo "$file: not in a known stage folder ($stage); add it to tests/layering_check.sh"
    status=1
    continue
  fi
  while IFS=: read -r line target; do
    target=${target#redscope/}
    case $target in
      embedded_models.hpp) continue ;; # generated into the build tree for model/
    esac
    used=$(dirname "$target")
    ok=0
    for a in ${allowed[$stage]}; do
      [[ $used == "$a" ]] && ok=1
    done
    if ((!ok)); then
      echo "$file:$line: stage '$stage' includes \"$target\" from stage '$used'," \
        "which is not below it"
      status=1
    fi
  done < <(grep -n '^#include "' "$file" | sed 's/^\([0-9]*\):#include "\([^"]*\)".*/\1:\2/')
done < <(find src include/redscope -name '*.cpp' -o -name '*.hpp' | sort)

if ((status == 0)); then
  echo "layering: every #include points at the same stage or one below it"
fi
exit $status
