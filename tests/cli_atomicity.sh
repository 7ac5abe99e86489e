#!/usr/bin/env bash
# `redscope atomicity`: two red.cta from two CTAs can lose an update (the
# scopes do not include each other's thread, so Atomicity does not apply) and
# a witness is printed; two red.gpu on one GPU cannot (morally strong, so the
# Atomicity axiom forbids it). On sm_60 a plain store can be lost against
# red.shared; on sm_70 it cannot. When the model's sm6x variant is the reason
# a mutually-in-scope pair loses a store, text and JSON say so in the model's
# terms, read off its Atomicity check (lost_update_reason). JSON carries the
# same verdicts.
set -uo pipefail
bin=$1; dir=$2/cli_atomicity; src=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$dir"; mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
pair() {  # name scope
  printf 'PTX %s\n{ global u32 x = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n red.%s.global.add.u32 [x], 1 | red.%s.global.add.u32 [x], 1 ;\nexists (x == 1)\n' "$1" "$2" "$2" > "$dir/$1.litmus"
}
pair red-cta cta
pair red-gpu gpu
store() {  # name target
  printf 'PTX %s\nTarget=%s\n{ shared u32 x = 0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n red.shared.add.u32 [x], 1 | st.volatile.shared.u32 [x], 5 ;\nexists (x == 1)\n' "$1" "$2" > "$dir/$1.litmus"
}
store store-sm60 sm_60
store store-sm70 sm_70
out=$("$bin" atomicity "$dir/red-cta.litmus") || fail "exit status $?"
grep -q "mutually in scope: no" <<<"$out" || fail "red.cta across CTAs must not be mutually in scope: $out"
grep -q "lost update: POSSIBLE: both RMWs read init x" <<<"$out" || fail "no lost update for red.cta: $out"
grep -q "rf init x -> P1#0" <<<"$out" || fail "no witness for red.cta: $out"
grep -q "final x=1" <<<"$out" || fail "witness final value: $out"
out=$("$bin" atomicity "$dir/red-gpu.litmus") || fail "exit status $?"
grep -q "mutually in scope: yes" <<<"$out" || fail "red.gpu on one GPU is mutually in scope: $out"
grep -q "lost update: impossible" <<<"$out" || fail "red.gpu must not lose an update: $out"
out=$("$bin" atomicity "$dir/store-sm60.litmus") || fail "exit status $?"
grep -q "ptx-sm6x" <<<"$out" || fail "sm_60 selects the sm6x model: $out"
grep -q "lost update: POSSIBLE: the store lands between" <<<"$out" || fail "sm_60 store vs red.shared: $out"
grep -qF "mutually in scope: yes (P0 (.gpu) and P1 (.sys) are in the same CTA, so each one's scope contains the other's thread), but lost: variant \"sm6x\" of the model: Atomicity's between is (msfr ; [RMW] ; msco) | (msfr ; msco ; [_ \ SHARED]), which leaves this pair out: P1's st.volatile.shared.u32 [x], 5 is not in RMW; P0's red.shared.add.u32 [x], 1 (its write) is in SHARED" <<<"$out" || fail "sm_60 lost store must name the sm6x variant: $out"
json=$("$bin" atomicity --format json "$dir/store-sm60.litmus") || fail "json exit status $?"
grep -q '"mutually_in_scope": true, "scope_reason": "P0 (.gpu) and P1 (.sys) are in the same CTA, so each one'"'"'s scope contains the other'"'"'s thread", "lost_update": true' <<<"$json" || fail "json sm_60 pair: $json"
grep -qF '"lost_update_reason": "variant \"sm6x\" of the model: Atomicity'"'"'s between is' <<<"$json" || fail "json sm_60 lost_update_reason: $json"
out=$("$bin" atomicity "$src/litmus/sm6x/store-vs-atom-shared-sm60-lost.litmus") || fail "exit status $?"
grep -q 'mutually in scope: yes (.*), but lost: variant "sm6x" of the model' <<<"$out" || fail "atom.shared vs store on sm_60 names the sm6x variant: $out"
out=$("$bin" atomicity "$src/litmus/sm6x/store-vs-red-global-sm60-safe.litmus") || fail "exit status $?"
grep -q "but lost" <<<"$out" && fail "global red on sm_60 loses nothing: $out"
out=$("$bin" atomicity "$dir/store-sm70.litmus") || fail "exit status $?"
grep -q "lost update: impossible" <<<"$out" || fail "sm_70 store vs red.shared: $out"
grep -q "but lost" <<<"$out" && fail "no sm6x reason on sm_70: $out"
out=$("$bin" atomicity --model ptx "$dir/store-sm60.litmus") || fail "exit status $?"
grep -q "lost update: impossible" <<<"$out" || fail "--model ptx overrides the target: $out"
json=$("$bin" atomicity --format json "$dir/red-cta.litmus" "$dir/red-gpu.litmus") || fail "json exit status $?"
[ "$(grep -o '"lost_update": true' <<<"$json" | wc -l)" -eq 1 ] || fail "json: one lost update expected: $json"
[ "$(grep -o '"lost_update": false' <<<"$json" | wc -l)" -eq 1 ] || fail "json: one safe pair expected: $json"
grep -q '"final": {"x": "1"}' <<<"$json" || fail "json witness final values: $json"
grep -q '"lost_update_reason": "not morally strong: P0'"'"'s .cta scope does not contain P1' <<<"$json" || fail "json reason for red.cta: $json"
# Proxies (issue 27, item 10): the reason is the model's own (cat::ms_words),
# so a pair in scope but through different proxies says so, never "in scope".
printf 'PTX sured-alias
{
  surface u32 sA[1] = {0};
  g @ generic aliases sA;
}
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 sured.b.add.1d.u32.trap [sA, {0}], 1 | red.relaxed.gpu.global.add.u32 [g], 1 ;
exists (sA[0] == 1)
' > "$dir/sured-alias.litmus"
out=$("$bin" atomicity "$dir/sured-alias.litmus") || fail "exit status $?"
grep -q "mutually in scope: no (P0's access goes through the surface proxy and P1's through the generic proxy: morally strong operations use one proxy (PTX §8.6))" <<<"$out" || fail "surface vs generic names the proxies: $out"
grep -q "lost update: POSSIBLE" <<<"$out" || fail "surface vs generic may lose an update: $out"
out=$("$bin" atomicity "$src/litmus/multimem/generic-red-races-inflight-bulk.litmus") || fail "exit status $?"
grep -q "goes through the async proxy and P1's through the generic proxy" <<<"$out" || fail "bulk vs generic red names the async proxy: $out"
out=$("$bin" atomicity "$src/litmus/sured/two-gpus-lost-update.litmus") || fail "exit status $?"
grep -q "scope does not contain" <<<"$out" || fail "two GPUs' sureds: the scope is the reason: $out"
# Another tool's model (Dat3M's ptx-v7.5.cat names it morally-strong): its own
# relation decides and is put into words; a model with no such relation gets
# "unknown", never a silent "no" (JSON null).
dat3m=$src/../shared/conformance/dat3m-ptx/cat/ptx-v7.5.cat
if [[ -f $dat3m ]]; then
  out=$("$bin" atomicity --model "$dat3m" "$dir/red-gpu.litmus") || fail "exit status $?"
  grep -q "mutually in scope: yes (.*sr" <<<"$out" || fail "Dat3M's morally-strong, in words: $out"
  out=$("$bin" atomicity --model "$dat3m" "$dir/red-cta.litmus") || fail "exit status $?"
  grep -q "mutually in scope: no" <<<"$out" || fail "Dat3M's model: red.cta across CTAs: $out"
fi
printf '"no ms"\nacyclic po as Order\n' > "$dir/no-ms.cat"
out=$("$bin" atomicity --model "$dir/no-ms.cat" "$dir/red-gpu.litmus") || fail "exit status $?"
grep -q "mutually in scope: unknown (the model names no morally strong relation" <<<"$out" ||
  fail "a model without ms: $out"
out=$("$bin" atomicity --format json --model "$dir/no-ms.cat" "$dir/red-gpu.litmus") ||
  fail "exit status $?"
grep -q '"mutually_in_scope": null' <<<"$out" || fail "a model without ms, JSON: $out"
echo "atomicity verdicts as expected"
