#!/usr/bin/env bash
# A stand-in for NVIDIA's ptxas (tests/cli_ptxas.sh): `redscope ptxas-check`'s
# own logic -- disagreements at the test's line and column, a crash that is
# never agreement -- tested without the real assembler's verdicts.
# FAKE_PTXAS=accept (default) | reject (every instruction) | crash (SIGSEGV).
if [ "${1:-}" = --version ]; then
  echo "ptxas: NVIDIA (R) Ptx optimizing assembler (a test's stand-in)"
  echo "Cuda compilation tools, release 13.0, V13.0.0"
  exit 0
fi
file=${!#}
if grep -q '^\.version 99' "$file"; then
  echo "ptxas $file, line 1; fatal   : Unsupported .version 99.9; current version is '9.0'"
  exit 255
fi
case "${FAKE_PTXAS:-accept}" in
  crash) kill -SEGV $$ ;;
  reject)
    # The kernels' instructions: indented, not a declaration, ld.param, ret or comment.
    awk -v f="$file" '/^  [a-z@]/ && !/^  (ld\.param|ret;)/ {
      printf "ptxas %s, line %d; error   : fake rejection\n", f, NR }' "$file"
    echo "ptxas fatal   : Ptx assembly aborted due to errors"
    exit 255 ;;
esac
exit 0
