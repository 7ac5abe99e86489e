#!/usr/bin/env bash
# Bad input: file:line:col diagnostics, exit status 1, and the rest of the
# suite still runs.
set -uo pipefail
bin=$1; dir=$2/cli_errors
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
good='PTX ok
{ x=0; }
 P0@cta 0,gpu 0 ;
 ld.weak r0, x ;
exists (P0:r0 == 0)'
printf '%s\n' "$good" > "$dir/a-good.litmus"
printf 'PTX bad\n{ x=0; }\n P0@cta 0,gpu 0 ;\n frob.weak r0, x ;\nexists (P0:r0 == 0)\n' > "$dir/b-unknown.litmus"
printf 'PTX bad\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0 ;\nexists (P0:r0 == 0)\n' > "$dir/c-operands.litmus"
printf 'PTX bad\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\nexists (P0:r7 == 0)\n' > "$dir/d-undefined-reg.litmus"
printf 'PTX bad\n{ x=0;\n P0@cta 0,gpu 0 ;\n' > "$dir/e-unterminated.litmus"
printf 'PTX bad\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.release.gpu r0, x ;\nexists (P0:r0 == 0)\n' > "$dir/f-qualifier.litmus"
printf 'PTX bad\n{ x=0; P0:%%h=1.0; }\n P0@cta 0,gpu 0 ;\n red.global.add.f16 [x], %%h ;\nexists (x == 0)\n' > "$dir/g-noftz.litmus"
printf 'PTX bad\n{ x=0; }\n P0@cta 0,gpu 0 ;\n red.shared.v2.f32.add [x], {1.0, 2.0} ;\nexists (x == 0)\n' > "$dir/h-vector-shared.litmus"
printf 'PTX bad\n{ x=0; }\n P0@cta 0,gpu 0 ;\n red.global.acquire.gpu.add.u32 [x], 1 ;\nexists (x == 0)\n' > "$dir/i-red-acquire.litmus"
printf 'PTX bad\n{ global f32 x = 1.5; }\n P0@cta 0,gpu 0 ;\n red.global.add.f32 [x], 1.0 ;\nexists (x == 2.5 /\\ x == 7e99)\n' > "$dir/j-literal.litmus"
printf 'PTX bad\nTarget=sm_50\n{ x=0; }\n P0@cta 0,gpu 0 ;\n red.global.add.f64 [x], 1.0 ;\nexists (x == 0)\n' > "$dir/k-target-f64.litmus"
printf 'PTX bad\nTarget=sm_80\n{ x=0; }\n P0@cta 0,gpu 0 ;\n red.global.v2.f32.add [x], {1.0, 2.0} ;\nexists (x == 0)\n' > "$dir/l-target-vector.litmus"
out=$("$bin" run "$dir" 2>"$dir/stderr"); rc=$?
[ $rc -eq 1 ] || fail "exit status $rc, expected 1"
grep -q "^Test ok Allowed" <<<"$out" || fail "the good test was not run"
check() { grep -q -- "$1" "$dir/stderr" || { cat "$dir/stderr"; fail "missing diagnostic: $1"; }; }
check "b-unknown.litmus:4:2: error: unknown instruction 'frob.weak'"
check "c-operands.litmus:4:13: error: 'ld.weak' takes operands 'dst, \[a\]': operand missing"
check "d-undefined-reg.litmus:5:9: error: register P0:r7 is neither initialised nor written by P0"
check "e-unterminated.litmus:3:2: error: unterminated init block"
check "f-qualifier.litmus:4:5: error: ld does not take .release"
check "g-noftz.litmus:4:17: error: red.add.f16 requires .noftz"
check "h-vector-shared.litmus:4:6: error: vector red may be used only with .global"
check "i-red-acquire.litmus:4:13: error: red does not take .acquire: the syntax table allows only .relaxed and .release (the seed's example"
check "j-literal.litmus:5:26: error: '7e99' is not a value of type .f32"
check "k-target-f64.litmus:5:17: error: red.add.f64 needs sm_60 or later (PTX ISA §9.7.13.6 red, Target ISA notes); this test's Target is sm_50"
check "l-target-vector.litmus:5:13: error: vector red (.v2/.v4/.v8) needs sm_90 or later (PTX ISA §9.7.13.6 red, Target ISA notes); this test's Target is sm_80"
"$bin" run --frobnicate "$dir" >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown option must exit 2"
"$bin" run "$dir/none.litmus" >/dev/null 2>&1; [ $? -eq 1 ] || fail "missing file must exit 1"
echo "all diagnostics as expected"
