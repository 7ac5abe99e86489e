#!/usr/bin/env bash
# Every C++ source is laid out as .clang-format says (100 columns): run
# `clang-format -i $(git ls-files '*.cpp' '*.hpp')` to fix. Skipped (77)
# where clang-format or git is missing.
set -u
cd "$1" || exit 1
command -v clang-format >/dev/null && command -v git >/dev/null || exit 77
files=$(git ls-files '*.cpp' '*.hpp' 2>/dev/null) || exit 77
[ -n "$files" ] || exit 77
clang-format --style=file --dry-run --Werror $files 2>&1 | head -20
exit "${PIPESTATUS[0]}"
