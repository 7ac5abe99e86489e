// `redscope gen cycle`'s library (include/redscope/generate/cycle.hpp,
// docs/cycles.md): edges and annotations read as diy7 and docs/cycles.md
// say, each bad cycle an error naming the edge and its column, the test of
// a cycle (threads, locations, values, condition, placement), the names,
// and the enumeration.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "redscope/core/diagnostic.hpp"
#include "redscope/dialects/cuda/cuda.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/generate/cycle.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_gen_cycle {

using namespace redscope;
using namespace redscope::generate;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using redscope::generate::EdgeKind;  // not redscope::EdgeKind (events.hpp)

namespace {

GeneratedTest gen(const std::string& cycle, CycleOptions options = {}) {
  return generate_cycle(parse_cycle(cycle, "cycle 1"), options, "cycle 1");
}

// The message of the InputError `f` throws ("" when it throws none).
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string gen_error(const std::string& cycle, CycleOptions options = {}) {
  return error_of([&] { gen(cycle, options); });
}

}  // namespace

TEST_CASE("gen cycle: diy7's edge words", "[gen-cycle]") {
  const Edge po = parse_edge("PodWR", "c", 1, 1);
  CHECK((po.kind == EdgeKind::Po && !po.same_loc && po.src == Dir::W && po.tgt == Dir::R));
  const Edge pos = parse_edge("PosRR", "c", 1, 1);
  CHECK((pos.same_loc && pos.src == Dir::R && pos.tgt == Dir::R));
  const Edge rfe = parse_edge("Rfe", "c", 1, 1);
  CHECK((rfe.kind == EdgeKind::Rf && rfe.external && rfe.src == Dir::W && rfe.tgt == Dir::R));
  const Edge fri = parse_edge("Fri", "c", 1, 1);
  CHECK((fri.kind == EdgeKind::Fr && !fri.external && fri.src == Dir::R && fri.tgt == Dir::W));
  CHECK(parse_edge("Wse", "c", 1, 1) == parse_edge("Coe", "c", 1, 1));  // diy's older name
  CHECK(parse_edge("Wsi", "c", 1, 1) == parse_edge("Coi", "c", 1, 1));
  const Edge data = parse_edge("DpDatadW", "c", 1, 1);
  CHECK((data.kind == EdgeKind::Dep && data.dep == DepKind::Data && data.src == Dir::R));
  const Edge ctrl = parse_edge("DpCtrlsR", "c", 1, 1);
  CHECK((ctrl.dep == DepKind::Ctrl && ctrl.same_loc && ctrl.tgt == Dir::R));
  const Edge rmw = parse_edge("Rmw", "c", 1, 1);
  CHECK((rmw.kind == EdgeKind::Rmw && rmw.src == Dir::R && rmw.tgt == Dir::W));
  // Fences: PTX's, directions optional (inferred), diy's strong Fenced = fence.sc.sys.
  const Edge f = parse_edge("Fence.sc.gpu", "c", 1, 1);
  CHECK((f.kind == EdgeKind::Fence && f.fence == "fence.sc.gpu" && f.src == Dir::Any));
  const Edge fd = parse_edge("Fence.acq_rel.ctadWR", "c", 1, 1);
  CHECK((fd.fence == "fence.acq_rel.cta" && fd.src == Dir::W && fd.tgt == Dir::R));
  CHECK(parse_edge("FencedWW", "c", 1, 1).fence == "fence.sc.sys");
  CHECK(parse_edge("Fence.sc.clustersRR", "c", 1, 1).same_loc);
  CHECK(edge_text(parse_edge("Fence.sc.gpu", "c", 1, 1)) == "Fence.sc.gpud**");
}

TEST_CASE("gen cycle: annotations and placements", "[gen-cycle]") {
  const Edge e = parse_edge("Rfe[release.gpu,acq.sys.shared]@cta", "c", 1, 1);
  REQUIRE(e.src_annot);
  REQUIRE(e.tgt_annot);
  CHECK(e.src_annot->sem == "release");
  CHECK(e.src_annot->scope == "gpu");
  CHECK(e.tgt_annot->sem == "acquire");
  CHECK(e.tgt_annot->space == generate::Space::Shared);
  CHECK(e.level == Level::Cta);
  const Edge one_side = parse_edge("PodWW[,rel.cluster]", "c", 1, 1);
  CHECK(!one_side.src_annot);
  CHECK(one_side.tgt_annot->scope == "cluster");
  // One annotation: both events; an Rmw's acq_rel is an acquire read and a release write.
  const Edge both = parse_edge("PodRR[rlx.cta]", "c", 1, 1);
  CHECK(both.src_annot == both.tgt_annot);
  const Edge rmw = parse_edge("Rmw[acq_rel.gpu]", "c", 1, 1);
  CHECK(rmw.src_annot->sem == "acquire");
  CHECK(rmw.tgt_annot->sem == "release");
  CHECK(edge_text(e) == "Rfe[release.gpu,acquire.sys.shared]@cta");
}

TEST_CASE("gen cycle: a bad edge is an error naming it, its position and column", "[gen-cycle]") {
  const auto err = [](const std::string& cycle) {
    return error_of([&] { parse_cycle(cycle, "cycle 3"); });
  };
  CHECK_THAT(err("PodWW PodXR"), Contains("cycle 3:1:7: error: edge 2 'PodXR'"));
  CHECK_THAT(err("Rfx"), Contains("expected Rfi (same thread) or Rfe (another thread)"));
  CHECK_THAT(err("Hat"), Contains("unknown edge"));
  CHECK_THAT(err("Rfe Fence.seq.gpu"), Contains("edge 2 'Fence.seq.gpu': a fence is Fence.sc"));
  CHECK_THAT(err("Fence.sc.moon"), Contains("a fence's scope is cta, cluster, gpu or sys"));
  CHECK_THAT(err("DpAddrdQ"), Contains("expected DpAddrdR, DpAddrdW"));
  CHECK_THAT(err("DpDatadR"), Contains("a data dependency ends at a write"));
  CHECK_THAT(err("PodWW[weak.gpu,]"), Contains("a weak access takes no scope"));
  CHECK_THAT(err("PodWW[strong,]"), Contains("unknown annotation 'strong'"));
  CHECK_THAT(err("PodWW[a,b,c]"), Contains("an edge has two events"));
  CHECK_THAT(err("PodWW@cta"), Contains("only an external edge"));
  CHECK_THAT(err("PodWW[,shared.global]"), Contains("'global' gives a second"));
  CHECK_THAT(err("PodWW[rel.rlx,]"), Contains("'rlx' gives a second"));
  CHECK_THAT(err("Rfe@moon"), Contains("cycle 3:1:5: error: edge 1 'Rfe@moon': unknown"));
  CHECK_THAT(err("   "), Contains("empty cycle"));
  std::string long_cycle;
  for (int i = 0; i < 200; ++i) long_cycle += "PodWR Fre ";
  CHECK_THAT(err(long_cycle), Contains("cycle 3:1:1281: error: a cycle has at most 256 edges"));
}

TEST_CASE("gen cycle: a cycle that is not one is an error naming the edge", "[gen-cycle]") {
  CHECK_THAT(gen_error("PodWW Rfe"),
             Contains("edge 1 'PodWW': starts at a write but edge 2 'Rfe' ends at a read"));
  CHECK_THAT(gen_error("Fence.sc.gpu Fence.sc.gpu Rfe PodRR Fre"),
             Contains("cannot infer the direction"));
  CHECK_THAT(gen_error("PodWR Fri"), Contains("the only edge between different locations"));
  CHECK_THAT(gen_error("PosWW PosWW"), Contains("no communication edge"));
  CHECK_THAT(gen_error("PosWR Fre"), Contains("the only external edge"));
  CHECK_THAT(gen_error("Coe Coe"), Contains("order the writes to x in a cycle"));
  CHECK_THAT(gen_error("PodWW Rfe[,release.gpu] PodRR Fre"),
             Contains("edge 2 'Rfe[,release.gpu]': a read cannot be a release"));
  CHECK_THAT(gen_error("PodWW[,rlx.gpu] Rfe[rlx.cta,] PodRR Fre"),
             Contains("differs from what edge"));
  CHECK_THAT(gen_error("PodWR Fre@cta PodWR Fre@sys"),
             Contains("edge 4 'Fre@sys': its placement is wider than every other"));
  CHECK_THAT(gen_error("PodWR[,shared] Fre PodWR Fre"), Contains("in shared memory"));
  CHECK_THAT(gen_error("Rmw[acq.gpu,rel.cta] Coe PodWR Fre"), Contains("starts at a read"));
  CHECK_THAT(gen_error("Rfe Rmw[acq.gpu,rel.cta] Coe"), Contains("one atom have one scope"));
  CycleOptions bad;
  bad.sem = "release.gpu";
  CHECK_THAT(gen_error("PodWR Fre PodWR Fre", bad), Contains("--sem is weak or relaxed"));
}

TEST_CASE("gen cycle: MP as diy7 writes it", "[gen-cycle]") {
  const GeneratedTest t = gen("PodWW Rfe PodRR Fre");
  CHECK(t.name == "MP");
  CHECK(t.cycle == "Rfe PodRR Fre PodWW");
  const LitmusTest test = parse_litmus(t.text, "MP.litmus");
  CHECK(test.metadata.at("Cycle") == "Rfe PodRR Fre PodWW");
  CHECK(test.metadata.at("Generator") == "redscope gen cycle");
  CHECK(test.threads.size() == 2);
  CHECK_THAT(t.text, Contains(" st.weak x, 1   | ld.weak r0, y  ;"));
  CHECK_THAT(t.text, Contains("exists (P1:r0 == 1 /\\ P1:r1 == 0)"));
  CHECK_THAT(t.text, Contains("P1@cta 1,gpu 0"));
  // Any rotation is the same test.
  CHECK(gen("Rfe PodRR Fre PodWW").text == t.text);
  CHECK(gen("PodRR Fre PodWW Rfe").text == t.text);
}

TEST_CASE("gen cycle: the Cycle= line gives the same test back", "[gen-cycle]") {
  for (const char* cycle :
       {"PodWW Rfe PodRR Fre", "Rfe@sys PodRW[,release.gpu] Rfe PodRR[acquire.gpu,] Fre@sys",
        "Fence.sc.cta Fre Fence.sc.gpu Fre", "DpDatadW Rfe DpCtrldW Rfe",
        "Rfe Rmw[acq_rel.sys] Coe", "PodWR[,shared] Fre@cta PodWR Fre", "PosWW Wsi",
        "Rfe PodRR Fre@cluster Rfe PodRR Fre"}) {
    const GeneratedTest t = gen(cycle);
    CHECK(gen(t.cycle).text == t.text);
  }
}

TEST_CASE("gen cycle: values follow coherence, Co shows in final values", "[gen-cycle]") {
  const GeneratedTest w = gen("PodWW Coe PodWW Coe");
  CHECK(w.name == "2+2W");
  CHECK_THAT(w.text, Contains("st.weak x, 2   | st.weak y, 2"));
  CHECK_THAT(w.text, Contains("exists (x == 2 /\\ y == 2)"));
  const GeneratedTest s = gen("PodWW Rfe PodRW Coe");
  CHECK(s.name == "S");
  CHECK_THAT(s.text, Contains("exists (P1:r0 == 1 /\\ x == 2)"));
  const GeneratedTest corr = gen("Rfe PosRR Fre");
  CHECK(corr.name == "CoRR");
  CHECK_THAT(corr.text, Contains("exists (P1:r0 == 1 /\\ P1:r1 == 0)"));
  // An Rmw is one atom; its read sees the write its Rf brings.
  const GeneratedTest rmw = gen("Rfe Rmw Coe");
  CHECK_THAT(rmw.text, Contains("atom.relaxed.gpu.exch.b32 r0, [x], 1"));
  CHECK_THAT(rmw.text, Contains("exists (P1:r0 == 2 /\\ x == 2)"));
}

TEST_CASE("gen cycle: fences, dependencies, annotations in the text", "[gen-cycle]") {
  const GeneratedTest sb = gen("Fence.sc.gpu Fre Fence.sc.cta Fre");
  CHECK(sb.name == "SB+fence.sc.cta+fence.sc.gpu");  // normalised: the smaller word first
  CHECK_THAT(sb.text, Contains("fence.sc.cta   | fence.sc.gpu"));
  CHECK(gen("Fence.sc.gpu Fre Fence.sc.gpu Fre").name == "SB+fence.sc.gpus");
  const GeneratedTest lb = gen("DpDatadW Rfe DpCtrldW Rfe");
  CHECK_THAT(lb.text, Contains("sub.s32 t0, r0, r0"));
  CHECK_THAT(lb.text, Contains("add.s32 t0, t0, 1"));
  CHECK_THAT(lb.text, Contains("st.weak x, t0"));
  CHECK_THAT(lb.text, Contains("beq r0, 0, LC000"));
  CHECK(gen("DpDatadW Rfe DpDatadW Rfe").name == "LB+datas");
  const GeneratedTest mp = gen("PodWW[,rel.gpu] Rfe PodRR[acq.gpu,] Fre");
  CHECK(mp.name == "MP+w-rel.gpu_acq.gpu-w");
  CHECK_THAT(mp.text, Contains("st.release.gpu y, 1"));
  CHECK_THAT(mp.text, Contains("ld.acquire.gpu r0, y"));
  CycleOptions rlx;
  rlx.sem = "relaxed.cta";
  CHECK(gen("PodWW Rfe PodRR Fre", rlx).name == "MP+rlx.cta");
  CHECK_THAT(gen("PodWW Rfe PodRR Fre", rlx).text, Contains("\nOptions=--sem relaxed.cta\n"));
  CHECK_THAT(gen("PodWW Rfe PodRR Fre").text, !Contains("Options="));
  CHECK_THAT(gen("PodWR[,shared] Fre@cta PodWR Fre").text, Contains("shared x=0; y=0;"));
}

TEST_CASE("gen cycle: placements composed round the cycle", "[gen-cycle]") {
  // Same CTA on one edge: the other edge follows (it may not be wider alone).
  CHECK_THAT(gen("PodWW Rfe@cta PodRR Fre").text, Contains("P0@cta 0,gpu 0 | P1@cta 0,gpu 0"));
  CHECK_THAT(gen("PodWW Rfe@sys PodRR Fre").text, Contains("P0@cta 0,gpu 0 | P1@cta 0,gpu 1"));
  const std::string cl = gen("PodWW Rfe@cluster PodRR Fre").text;
  CHECK_THAT(cl, Contains("P0@cta 0,cluster 0,gpu 0 | P1@cta 1,cluster 0,gpu 0"));
  // IRIW over two GPUs: readers beside their writers.
  const std::string iriw = gen("Rfe PodRR Fre@sys Rfe PodRR Fre@sys").text;
  CHECK_THAT(iriw, Contains("P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 0,gpu 1 | P3@cta 1,gpu 1"));
  CycleOptions cta;
  cta.placement = Level::Cta;
  CHECK_THAT(gen("Rfe PodRW Rfe PodRR Fre", cta).text,
             Contains("P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0"));
}

TEST_CASE("gen cycle: --size enumerates each cycle once, deterministically", "[gen-cycle]") {
  const auto names = [](std::size_t size) {
    EnumerateOptions o;
    o.max_edges = size;
    std::vector<std::string> out;
    for_each_cycle(o, [&](const GeneratedTest& t) {
      CHECK_NOTHROW(parse_litmus(t.text, t.name));
      out.push_back(t.name);
    });
    return out;
  };
  const std::vector<std::string> four = names(4);
  CHECK(four == names(4));
  const std::set<std::string> set4(four.begin(), four.end());
  CHECK(set4.size() == four.size());
  for (const char* shape : {"MP", "SB", "LB", "2+2W", "S", "R"}) CHECK(set4.count(shape));
  CHECK(!set4.count("IRIW"));
  CHECK(!set4.count("CoRR"));  // diy7's default mode: two location changes at least
  const std::vector<std::string> six = names(6);
  const std::set<std::string> set6(six.begin(), six.end());
  for (const char* shape : {"IRIW", "WRC", "ISA2", "MP"}) CHECK(set6.count(shape));
  // A vocabulary with '*' directions and fences; a bad word is located in the list.
  EnumerateOptions o;
  o.max_edges = 4;
  o.vocabulary = {"Rfe", "Fre", "Fence.sc.gpu"};
  std::set<std::string> fenced;
  for_each_cycle(o, [&](const GeneratedTest& t) { fenced.insert(t.name); });
  CHECK(fenced.count("SB+fence.sc.gpus"));
  CHECK(fenced.count("MP+fence.sc.gpus"));
  // diy's -relax: every cycle has a fence; the fence words need not be in --edges.
  o.vocabulary = {"Rfe", "Fre", "PodWR", "PodWW", "PodRR"};
  o.relax = {"Fence.sc.cta"};
  std::set<std::string> relaxed;
  for_each_cycle(o, [&](const GeneratedTest& t) {
    CHECK_THAT(t.text, Contains("fence.sc.cta"));
    relaxed.insert(t.name);
  });
  CHECK(relaxed.count("SB+fence.sc.ctas"));
  CHECK(relaxed.count("MP+fence.sc.cta+po"));
  CHECK(!relaxed.count("MP"));
  o.relax.clear();
  o.vocabulary = {"Rfe", "PodQQ"};
  CHECK_THAT(error_of([&] { for_each_cycle(o, [](const GeneratedTest&) {}); }),
             Contains("--edges:1:1: error: edge 2 'PodQQ'"));
}

namespace {
Edge edge(const char* w) { return parse_edge(w, "test", 1, 1); }
std::string words(const std::vector<Edge>& es) {
  std::string out;
  for (const Edge& e : es) out += (out.empty() ? "" : " ") + edge_text(e);
  return out;
}
}  // namespace

// herdtools7 gen/alt.ml (can_precede, choice_default) and gen/edge.ml's order.
TEST_CASE("gen cycle: diy7's rules for adjacent edges and its normal form", "[gen-cycle]") {
  const PairRules def;
  // Communications that only order writes again: external pairs rejected,
  // an internal and an external one kept (alternance).
  CHECK(!can_precede(edge("Coe"), edge("Coe"), def));
  CHECK(!can_precede(edge("Fre"), edge("Coe"), def));
  CHECK(!can_precede(edge("Rfe"), edge("Fre"), def));
  CHECK(can_precede(edge("Coi"), edge("Coe"), def));
  CHECK(can_precede(edge("Rfi"), edge("Fre"), def));
  CHECK(can_precede(edge("Fre"), edge("Rfe"), def));
  CHECK(can_precede(edge("Coe"), edge("Rfe"), def));
  PairRules keep;
  keep.keep_com_pairs = true;
  CHECK(can_precede(edge("Coe"), edge("Coe"), keep));
  // Directions chain.
  CHECK(!can_precede(edge("Rfe"), edge("PodWR"), def));
  // Internal after internal: Pod then Pod no; Pos (not RR) with Pod yes.
  CHECK(!can_precede(edge("PodWW"), edge("PodWR"), def));
  CHECK(can_precede(edge("PosWW"), edge("PodWR"), def));
  CHECK(!can_precede(edge("PosRR"), edge("PodRW"), def));
  CHECK(can_precede(edge("PosWR"), edge("PosRR"), def));
  CHECK(!can_precede(edge("Fence.sc.gpudWW"), edge("PodWR"), def));
  // -mode critical: internal and external alternate, but Co or Fr then Rf.
  PairRules critical;
  critical.mode = Mode::Critical;
  CHECK(!can_precede(edge("PosWW"), edge("PodWR"), critical));
  CHECK(can_precede(edge("Coe"), edge("Rfi"), critical));
  // -mode uni: no Po after Po.
  PairRules uni;
  uni.mode = Mode::Uni;
  CHECK(!can_precede(edge("PosWW"), edge("PosWR"), uni));
  CHECK(parse_mode("uni") == Mode::Uni);
  CHECK(!parse_mode("Uni"));
  // -mode ppo (choice_ppo): never one edge twice in a row; after a control
  // dependency to a read only an external edge (cDep's is_ctrlr).
  PairRules ppo;
  ppo.mode = Mode::Ppo;
  CHECK(!can_precede(edge("PodWW"), edge("PodWW"), ppo));
  CHECK(can_precede(edge("PodWW"), edge("PodWR"), ppo));
  CHECK(!can_precede(edge("DpCtrldR"), edge("PodRW"), ppo));
  CHECK(can_precede(edge("DpCtrldR"), edge("Fre"), ppo));
  CHECK(can_precede(edge("DpAddrdR"), edge("PodRW"), ppo));
  // -mode transitive (choice_transitive over compact_sequence): two internal
  // edges are dropped when what they compose to is a word of the vocabulary.
  PairRules trans;
  trans.mode = Mode::Transitive;
  trans.vocabulary = {edge("PodWR"), edge("PodRR"), edge("Rfi"), edge("Fence.sc.gpudWW")};
  CHECK(!can_precede(edge("Rfi"), edge("PodRR"), trans));              // po: PodWR
  CHECK(!can_precede(edge("PodWR"), edge("PodRR"), trans));            // po: PodWR
  CHECK(can_precede(edge("PodRW"), edge("PodWW"), trans));             // PodRW: not a word
  CHECK(!can_precede(edge("PodWW"), edge("Fence.sc.gpudWW"), trans));  // the fence over both
  CHECK(can_precede(edge("PodWR"), edge("Fre"), trans));               // external: kept
  trans.vocabulary = {edge("Coi")};
  CHECK(!can_precede(edge("Rfi"), edge("Fri"), trans));  // Rf;Fr is Co
  CHECK(parse_mode("trans") == Mode::Transitive);
  CHECK(parse_mode("def") == Mode::Default);
  // The order: Rfi Rfe Fri Fre Coi Coe, then Pos before Pod, W before R.
  CHECK(diy_compare(edge("Rfe"), edge("Fre")) < 0);
  CHECK(diy_compare(edge("Fre"), edge("Coe")) < 0);
  CHECK(diy_compare(edge("Coe"), edge("PosRR")) < 0);
  CHECK(diy_compare(edge("PosRR"), edge("PodWW")) < 0);
  CHECK(diy_compare(edge("PodRW"), edge("PodRR")) < 0);
  // The catalogue's Cycle= lines (herdtools7 catalogue/aarch64/tests R and
  // S, x86_64/tests WWC; Wse is Coe).
  CHECK(words(least_rotation(parse_cycle("PodWW Coe PodWR Fre", "t"))) == "Fre PodWW Coe PodWR");
  CHECK(gen("PodWW Coe PodWR Fre").cycle == "Fre PodWW Coe PodWR");
  CHECK(gen("PodWW Rfe PodRW Coe").cycle == "Rfe PodRW Coe PodWW");
  CHECK(gen("Rfe PodRW Rfe PodRW Coe").cycle == "Rfe PodRW Rfe PodRW Coe");
}

TEST_CASE("gen cycle: --size enumerates as diy7 does", "[gen-cycle]") {
  const auto count = [](EnumerateOptions o) {
    std::size_t n = 0;
    for_each_cycle(o, [&](const GeneratedTest&) { ++n; });
    return n;
  };
  // diy7 7.58 -safe PodWW,PodWR,PodRW,PodRR,Rfe,Fre,Coe -size N: 6, 12, 26.
  EnumerateOptions o;
  o.vocabulary = {"PodWW", "PodWR", "PodRW", "PodRR", "Rfe", "Fre", "Coe"};
  const std::vector<std::size_t> diy = {6, 12, 26};
  for (std::size_t n = 4; n <= 6; ++n) {
    o.max_edges = n;
    CHECK(count(o) == diy[n - 4]);
  }
  // -nprocs 2: only the two-thread cycles (MP, SB, LB, S, R, 2+2W).
  o.nprocs = 2;
  CHECK(count(o) == 6);
  o.nprocs = 4;
  // -mode uni keeps one-location cycles; the default drops them.
  EnumerateOptions u;
  u.max_edges = 4;
  std::set<std::string> names;
  for_each_cycle(u, [&](const GeneratedTest& t) { names.insert(t.name); });
  CHECK(!names.count("CoRR"));
  u.rules.mode = Mode::Uni;
  names.clear();
  for_each_cycle(u, [&](const GeneratedTest& t) { names.insert(t.name); });
  CHECK(names.count("CoRR"));
  // -relax (diy's -mix false): one relaxation per cycle, never two.
  EnumerateOptions r;
  r.max_edges = 4;
  r.vocabulary = {"Rfe", "Fre", "PodWR", "PodWW", "PodRR"};
  r.relax = {"Fence.sc.cta", "Fence.sc.gpu"};
  for_each_cycle(r, [&](const GeneratedTest& t) {
    const bool cta = t.text.find("fence.sc.cta") != std::string::npos;
    const bool gpu = t.text.find("fence.sc.gpu") != std::string::npos;
    CHECK(cta != gpu);
  });
  // -mix true (gen/alt.ml all_relax): -minrelax to -maxrelax relaxations a
  // cycle; -maxrelax 1 is -mix false again, -maxrelax 0 makes nothing.
  r.max_edges = 6;
  r.vocabulary = {"Rfe", "Fre", "Coe", "PodWW", "PodRR"};
  r.relax = {"PodWR", "PodRW"};
  const std::size_t one = count(r);
  r.mix = true;
  const std::size_t mixed = count(r);
  r.min_relax = 2;
  const std::size_t both = count(r);
  CHECK(both > 0);
  CHECK(mixed == one + both);
  for_each_cycle(r, [&](const GeneratedTest& t) {
    CHECK(t.cycle.find("PodWR") != std::string::npos);
    CHECK(t.cycle.find("PodRW") != std::string::npos);
  });
  r.min_relax = 1;
  r.max_relax = 1;
  CHECK(count(r) == one);
  r.max_relax = 0;
  CHECK(count(r) == 0);
}

// docs/cycles.md "CUDA": each access as the libcu++ operation nvcc compiles
// to the PTX test's (docs/cuda.md's tables).
TEST_CASE("gen cycle: --lang cuda writes the test in CUDA C++", "[gen-cycle]") {
  CycleOptions cuda;
  cuda.lang = &cuda::cycle_language();
  const std::string mp = gen("PodWW[,release.gpu] Rfe PodRR[acquire.sys,] Fre", cuda).text;
  CHECK_THAT(mp, StartsWith("CUDA MP+"));
  CHECK_THAT(mp, Contains("{ int x = 0; int y = 0; }\nP0@cta 0,gpu 0 {\n  *x = 1;\n"));
  CHECK_THAT(mp, Contains("cuda::atomic_ref<int, cuda::thread_scope_device>(*y).store(1, "
                          "cuda::std::memory_order_release);"));
  CHECK_THAT(mp, Contains("int r0 = cuda::atomic_ref<int, cuda::thread_scope_system>(*y)"
                          ".load(cuda::std::memory_order_acquire);\n  int r1 = *x;"));
  CHECK_THAT(mp, Contains("Options=--lang cuda\n"));
  const std::string sb = gen("Fence.sc.cta Fre@cta Fence.acq_rel.sys Fre", cuda).text;
  CHECK_THAT(sb, Contains("cuda::atomic_thread_fence(cuda::std::memory_order_seq_cst, "
                          "cuda::thread_scope_block);"));
  CHECK_THAT(sb, Contains("cuda::std::memory_order_acq_rel, cuda::thread_scope_system"));
  // An Rmw is an exchange whose result is the read's register.
  const std::string rmw = gen("Rfe PodRW Rfe Rmw[acq_rel.gpu] PodWW", cuda).text;
  CHECK_THAT(rmw, Contains("int r0 = cuda::atomic_ref<int, cuda::thread_scope_device>(*y)"
                           ".exchange(2, cuda::std::memory_order_acq_rel);\n  *x = 1;"));
  cuda.space = generate::Space::Shared;
  cuda.placement = Level::Cta;
  CHECK_THAT(gen("PodWR Fre PodWR Fre", cuda).text,
             Contains("{ __shared__ int x = 0; __shared__ int y = 0; }"));
  cuda = CycleOptions{};
  cuda.lang = &cuda::cycle_language();
  CHECK_THAT(error_of([&] { gen("Rfe DpCtrldW Rfe PodRW", cuda); }),
             Contains("edge 2 'DpCtrldW': has no CUDA form: a dependency"));
  CHECK_THAT(error_of([&] { gen("PodWR[relaxed.cluster,] Fre PodWR Fre", cuda); }),
             Contains("has no CUDA form: a cluster scope"));
}

// diy's false address dependency (docs/cycles.md "Edges"): the read's value
// less itself added to the location's address, read through the register
// (docs/litmus-format.md "Addresses in registers").
TEST_CASE("gen cycle: DpAddr writes an address dependency", "[gen-cycle]") {
  const GeneratedTest mp = gen("PodWW Rfe DpAddrdR Fre");
  CHECK(mp.name == "MP+po+addr");
  CHECK_THAT(mp.text, Contains("sub.s64 %a0, r0, r0"));
  CHECK_THAT(mp.text, Contains("mov.u64 %a1, x"));
  CHECK_THAT(mp.text, Contains("add.u64 %a2, %a1, %a0"));
  CHECK_THAT(mp.text, Contains("ld.weak r1, [%a2]"));
  CHECK_THAT(gen("Rfe DpAddrdW Rfe DpAddrdW").text, Contains("st.weak [%a2], 1"));
  CHECK(gen("Rfe DpAddrdW Rfe DpAddrdW").name == "LB+addrs");
  const LitmusTest t = parse_litmus(mp.text, "mp.litmus");
  CHECK(t.threads.size() == 2);
}

// diy7's -obs (herdtools7 gen/top_gen.ml check_writes): x written three times.
TEST_CASE("gen cycle: observers for a location of three writes", "[gen-cycle]") {
  const std::string three = "Coe PodWW Coe PodWW PosWW";
  CHECK_THAT(gen_error(three), Contains("x has 3 writes"));
  CycleOptions o;
  o.obs = Observers::Accept;
  const GeneratedTest t = gen(three, o);
  CHECK_THAT(t.text, Contains("P2@cta 2,gpu 0"));
  CHECK_THAT(t.text, Contains("P2:r0 == 1 /\\ P2:r1 == 2 /\\ P2:r2 == 3"));
  CHECK_THAT(t.text, Contains("Options=--obs accept\n"));
  o.obs = Observers::Local;
  CHECK_THAT(gen(three, o).text, !Contains("P2@"));
  // force: an observer from two writes on (2+2W's x and y).
  o.obs = Observers::Force;
  const std::string w2 = gen("Coe PodWW Coe PodWW", o).text;
  CHECK_THAT(w2, Contains("P2@cta 2,gpu 0"));
  CHECK_THAT(w2, Contains("P3@cta 3,gpu 0"));
}

}  // namespace unit_gen_cycle
