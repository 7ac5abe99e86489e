// Expansion into skeletons: events, po/rmw/dependency edges, loop unrolling.
#include <catch2/catch.hpp>

#include "redscope/events/events.hpp"
#include "redscope/frontend/frontend.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_events {

using namespace redscope;

namespace {

Expansion expand_text(const std::string& body, const std::string& cond, int unroll = 2) {
  const LitmusTest t = parse_litmus("PTX t\n{ x=0; y=0; }\n" + body + cond + "\n", "t.litmus");
  return expand(t, ExpandOptions{unroll, 20000});
}

std::size_t count_edges(const Skeleton& s, EdgeKind k) {
  std::size_t n = 0;
  for (auto [it, end] = boost::edges(s.graph); it != end; ++it) n += s.graph[*it].kind == k;
  return n;
}

}  // namespace

TEST_CASE("straight-line code gives one skeleton with init writes and po", "[events]") {
  const Expansion ex = expand_text(
      " P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.acquire.gpu r0, y ;\n st.release.gpu "
      "y, 1 | ld.weak r1, x ;\n",
      "exists (P1:r0 == 1)");
  REQUIRE(ex.skeletons.size() == 1);
  const Skeleton& s = ex.skeletons[0];
  CHECK(s.size() == 2 + 4);  // init x, init y, four accesses
  CHECK(count_edges(s, EdgeKind::Po) == 2);
  CHECK(s.ev(s.init_write.at("x")).is_init);
  const Event& rel = s.ev(s.thread_base[0] + 1);
  CHECK(rel.is_write());
  CHECK(rel.is_release());
  CHECK(rel.scope == Scope::Gpu);
  CHECK_FALSE(s.ev(s.thread_base[0]).is_strong());  // st.weak
}

TEST_CASE("an atom is a read and a write joined by rmw; sem splits between them", "[events]") {
  const Expansion ex = expand_text(
      " P0@cta 0,gpu 0 ;\n atom.acq_rel.gpu.add r0, x, 1 ;\n st.weak y, r0 ;\n", "exists (x == 1)");
  const Skeleton& s = ex.skeletons.at(0);
  const EventId r = s.thread_base[0], w = r + 1, st = r + 2;
  CHECK(s.ev(r).is_read());
  CHECK(s.ev(w).is_write());
  CHECK(s.ev(r).sem == Sem::Acquire);  // acquire half on the read
  CHECK(s.ev(w).sem == Sem::Release);  // release half on the write
  const BoolMatrix rmw = edge_matrix(s, EdgeKind::Rmw);
  const BoolMatrix data = edge_matrix(s, EdgeKind::Data);
  CHECK(rmw[r][w]);
  CHECK(data[r][st]);  // st y, r0 depends on the atom's read
}

TEST_CASE("a failed atom.cas writes nothing: its write is guarded", "[events]") {
  const Expansion ex =
      expand_text(" P0@cta 0,gpu 0 ;\n atom.relaxed.gpu.cas r0, x, 0, 1 ;\n", "exists (x == 1)");
  const Skeleton& s = ex.skeletons.at(0);
  CHECK(s.ev(s.thread_base[0] + 1).guard != nullptr);
}

TEST_CASE("branches fork paths; control dependencies follow the branch", "[events]") {
  const Expansion ex = expand_text(
      " P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\n beq r0, 0, LC00 ;\n st.weak y, 1 ;\n LC00: ;\n "
      "st.weak y, 2 ;\n",
      "exists (y == 2)");
  REQUIRE(ex.skeletons.size() == 2);
  for (const Skeleton& s : ex.skeletons) {
    CHECK(s.assumptions.size() == 1);
    const BoolMatrix ctrl = edge_matrix(s, EdgeKind::Ctrl);
    const EventId ld = s.thread_base[0];
    CHECK(ctrl[ld][s.size() - 1]);  // the last store depends on the branch
  }
}

TEST_CASE("loops unroll to the bound; longer paths are cut", "[events]") {
  const std::string spin = " P0@cta 0,gpu 0 ;\n LC00: ;\n ld.weak r0, x ;\n beq r0, 0, LC00 ;\n";
  for (int u : {0, 1, 3}) {
    const Expansion ex = expand_text(spin, "exists (P0:r0 == 1)", u);
    std::size_t cut = 0;
    for (const Skeleton& s : ex.skeletons) cut += s.cut;
    CHECK(cut == 1);  // spinning past the bound
    CHECK(ex.skeletons.size() ==
          static_cast<std::size_t>(u) + 2);  // exit after 1..u+1 reads, or cut
  }
}

TEST_CASE("barriers record id, logical id and quorum", "[events]") {
  const Expansion ex = expand_text(
      " P0@cta 0,gpu 0 ;\n bar.cta.sync 1, 2, 3 ;\n bar.cta.arrive 4 ;\n", "exists (x == 0)");
  const Skeleton& s = ex.skeletons.at(0);
  const Event& b = s.ev(s.thread_base[0]);
  CHECK(b.is_barrier());
  CHECK(b.barrier_id == 1);
  CHECK(const_value(b.barrier_logical) == 2u);
  CHECK(b.quorum == 3);
  CHECK(s.ev(s.thread_base[0] + 1).barrier_arrive_only);
}

TEST_CASE("mixed-size and cross-CTA shared accesses are rejected", "[events]") {
  CHECK_THROWS_WITH(
      expand_text(
          " P0@cta 0,gpu 0 ;\n st.relaxed.gpu.u64 [x], 1 ;\n ld.relaxed.gpu.u32 r0, [x] ;\n",
          "exists (x == 0)"),
      Catch::Contains("mixed-size access to 'x'"));
  CHECK_THROWS_WITH(
      expand_text(
          " P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.shared.weak [x], 1 | ld.shared.weak r0, [x] ;\n",
          "exists (x == 0)"),
      Catch::Contains("another CTA reaches it only through .shared::cluster addressing"));
}

}  // namespace unit_events
