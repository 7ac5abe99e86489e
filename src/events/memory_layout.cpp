// Memory layout: declarations, inference of undeclared locations, and the
// access checks of the PTX memory model (see memory_layout.hpp): one cell size
// per location, alignment, state spaces, and who may reach shared memory.
#include "events/memory_layout.hpp"
#include "events/input_error.hpp"
#include "redscope/frontend/lexer.hpp"

#include <algorithm>
#include <functional>
#include <tuple>

#include <fmt/format.h>

namespace redscope::detail {
namespace {

bool is_shared(Space s) { return s == Space::SharedCta || s == Space::SharedCluster; }

// The size of one scalar access of `in`: a packed value's lane, a vector's
// element, else the whole value (PTX: vector and packed accesses are sets of
// scalar accesses).
unsigned unit_bits(const Instruction& in) { return width_of(lane_type(in.type)); }
std::size_t access_bytes(const Instruction& in) { return in.vec * width_of(in.type) / 8; }

bool overlaps(const Instruction& a, const Instruction& b) {
  const auto lo_a = a.addr->offset, lo_b = b.addr->offset;
  return lo_a < lo_b + static_cast<std::int64_t>(access_bytes(b)) &&
         lo_b < lo_a + static_cast<std::int64_t>(access_bytes(a));
}

std::string cta_name(const Placement& p) { return fmt::format("CTA {} of GPU {}", p.cta, p.gpu); }
std::string cluster_name(const Placement& p) {
  if (p.cluster < 0)
    return fmt::format("the cluster {} forms alone (placed without a cluster)", cta_name(p));
  return fmt::format("cluster {} of GPU {}", p.cluster, p.gpu);
}

}  // namespace

std::string cell_name(const std::string& base, const Location& l, std::size_t i) {
  return l.is_array ? fmt::format("{}[{}]", base, i) : base;
}

MemoryLayout::MemoryLayout(const LitmusTest& t) : t_(t) {
  for (const InitEntry& e : t.init)
    if (!e.thread) decl_[e.name] = &e;
  for (const ThreadCode& tc : t.threads)
    for (const Instruction& in : tc.code)
      if (in.addr) {
        accesses_[in.addr->name].push_back(Access{&in, &tc});
        decl_.emplace(in.addr->name, nullptr);
      }
  choose_cells();
  size_locations();
  check_spaces();
  fill_init();
  check_condition_cells();
}

// A location's cells have the size of its scalar accesses; all must agree.
// The printed type is the declared one (or its lane type) when it has that
// size, else the type of the first access.
void MemoryLayout::choose_cells() {
  for (const auto& [x, e] : decl_) {
    const std::vector<Access>& acc = accesses_[x];
    Location l;
    for (const Access& a : acc) {
      const Instruction& first = *acc.front().in;
      if (unit_bits(*a.in) == unit_bits(first)) continue;
      const std::string sizes = fmt::format(
          "this .{} access works on {}-bit units, the .{} access at line {} on {}-bit units",
          to_string(a.in->type), unit_bits(*a.in), to_string(first.type), first.loc.line,
          unit_bits(first));
      if (overlaps(*a.in, first))
        input_error(t_, a.in->loc,
                    fmt::format("mixed-size access to '{}': {}. They overlap only partially: PTX's "
                                "memory model relates "
                                "only accesses that overlap completely (morally strong needs "
                                "complete overlap; the axioms do not "
                                "apply to programs with mixed-size data races), so redscope "
                                "rejects the test rather than tear the access",
                                x, sizes));
      input_error(t_, a.in->loc,
                  fmt::format("'{}' is accessed in units of two sizes ({}); redscope needs one "
                              "access size per location: "
                              "declare separate locations",
                              x, sizes));
    }
    const unsigned bits = acc.empty() ? (e && e->type ? width_of(lane_type(*e->type)) : 32)
                                      : unit_bits(*acc.front().in);
    const DataType first_type = acc.empty() ? DataType::S32 : lane_type(acc.front().in->type);
    if (e && e->type && width_of(lane_type(*e->type)) == bits)
      l.cell = lane_type(*e->type);
    else if (e && e->type && width_of(*e->type) == bits)
      l.cell = *e->type;
    else
      l.cell = first_type;
    l.count = 0;  // sized by its accesses
    if (e && e->type) {
      const std::size_t bytes = (e->count ? *e->count : 1) * width_of(*e->type) / 8;
      if (bytes % (bits / 8) != 0)
        input_error(t_, e->loc,
                    fmt::format("'{}' holds {} byte(s), not a whole number of the {}-byte accesses "
                                "made to it (line {})",
                                x, bytes, bits / 8, acc.front().in->loc.line));
      l.count = bytes / (bits / 8);
    } else if (e && e->count) {
      l.count = *e->count;
    }
    l.is_array = (e && e->count) || l.count > 1;
    if (e && e->space) l.space = *e->space;
    locs_.emplace(x, l);
  }
}

// Every access covers whole, aligned cells inside its location.
void MemoryLayout::size_locations() {
  for (const auto& [x, acc] : accesses_)
    for (const Access& a : acc) {
      const Instruction& in = *a.in;
      Location& l = locs_.at(x);
      const InitEntry* e = decl_.at(x);
      const std::int64_t cell_bytes = width_of(l.cell) / 8,
                         unit_bytes = static_cast<std::int64_t>(access_bytes(in));
      if (in.addr->offset % cell_bytes != 0 || in.addr->offset % unit_bytes != 0)
        input_error(
            t_, in.addr->loc,
            fmt::format(
                "misaligned access: offset {} of '{}' is not a multiple of the {}-byte access size",
                in.addr->offset, x, unit_bytes));
      const std::size_t end =
          static_cast<std::size_t>(in.addr->offset / cell_bytes) + in.vec * lanes_of(in.type);
      const bool fixed = e && (e->count || e->type);
      if (fixed && end > l.count)
        input_error(t_, in.addr->loc,
                    fmt::format("access past the end of '{}': it has {} {}-byte cell(s)", x,
                                l.count, cell_bytes));
      if (!fixed && end > kMaxCellsPerLocation)
        input_error(t_, in.addr->loc,
                    fmt::format("offset {} of '{}' is its cell {}: an undeclared location has at "
                                "most {} cells (every cell is an event of every execution)",
                                in.addr->offset, x, end - 1, kMaxCellsPerLocation));
      if (!fixed) l.count = std::max(l.count, end);
    }
  // Where each location is first named (its declaration, else its first
  // access), so that the cell limit is reported where the source crosses it.
  std::vector<std::tuple<int, int, const std::string*>> order;
  for (auto& [x, l] : locs_) {
    if (l.count == 0) l.count = 1;
    l.is_array = l.is_array || l.count > 1;
    const InitEntry* e = decl_.at(x);
    const auto acc = accesses_.find(x);
    const SourceLoc at =
        e ? e->loc
          : (acc != accesses_.end() && !acc->second.empty() ? acc->second.front().in->loc
                                                            : SourceLoc{});
    order.emplace_back(at.line, at.col, &x);
  }
  std::sort(order.begin(), order.end());
  std::size_t total = 0;
  for (const auto& [line, col, x] : order) {
    total += locs_.at(*x).count;
    if (total > kMaxCells)
      input_error(t_, SourceLoc{line, col},
                  fmt::format("more than {} memory cells in one test (with '{}'): every cell is "
                              "an initial write in every execution",
                              kMaxCells, *x));
  }
}

// Global and shared memory are different places (a declaration and the
// explicit accesses must agree); generic accesses resolve to where they put
// the location. Generic forms that PTX allows only on global memory are
// checked against that resolution, as their explicit forms are in the parser.
void MemoryLayout::check_spaces() {
  for (const auto& [x, e] : decl_) {
    const std::vector<Access>& acc = accesses_[x];
    std::optional<std::pair<Space, SourceLoc>> seen;
    if (e && e->space) seen.emplace(*e->space, e->loc);
    for (const Access& a : acc) {
      const Instruction& in = *a.in;
      if (in.space == Space::Generic) continue;
      if (!seen)
        seen.emplace(in.space, in.loc);
      else if (is_shared(seen->first) != is_shared(in.space))
        input_error(t_, in.loc,
                    fmt::format("'{}' is accessed as .{} here but is .{} (line {})", x,
                                to_string(in.space), to_string(seen->first), seen->second.line));
    }
    Location& l = locs_.at(x);
    if (seen) l.space = seen->first;
    if (!is_shared(l.space)) continue;
    check_shared_reach(x, acc);
    for (const Access& a : acc) {
      const Instruction& in = *a.in;
      if (in.space != Space::Generic) continue;
      const bool rmw = in.kind == InstrKind::Red || in.kind == InstrKind::Atom;
      if (rmw && in.vec > 1)
        isa_rule_error(
            t_, in.loc,
            fmt::format("vector {} may be used only with .global space and with generic "
                        "addressing where the address "
                        "points to .global space (red seed); '{}' is .{} memory",
                        in.kind == InstrKind::Red ? "red" : "atom", x, to_string(l.space)),
            "a vector red/atom through a generic address must point to .global memory (PTX ISA "
            "§9.7.13.6 red, §9.7.13.5 atom)");
      if (in.cache_hint)
        isa_rule_error(t_, in.loc,
                       fmt::format(".L2::cache_hint is only supported for .global state space "
                                   "and for generic addressing where the "
                                   "address points to .global (red seed); '{}' is .{} memory",
                                   x, to_string(l.space)),
                       ".L2::cache_hint through a generic address must point to .global memory "
                       "(PTX ISA §9.7.13.6 red)");
    }
  }
}

// Shared memory belongs to one CTA. Its own CTA reaches it through the
// .shared::cta window (explicit, or generic addressing of a location not
// declared .shared::cluster); the CTAs of its cluster reach it through
// .shared::cluster (PTX "State spaces": distributed shared memory). Nothing
// outside the cluster reaches it; clusters never span GPUs.
void MemoryLayout::check_shared_reach(const std::string& x, const std::vector<Access>& acc) const {
  const Location& l = locs_.at(x);
  const Access* owner = nullptr;  // the first access through the .shared::cta window
  const Access* first = acc.empty() ? nullptr : &acc.front();
  for (const Access& a : acc) {
    const Placement& p = a.thread->place;
    const bool cta_window = a.in->space == Space::SharedCta ||
                            (a.in->space == Space::Generic && l.space == Space::SharedCta);
    if (cta_window && !owner) owner = &a;
    const Placement& o = cta_window ? owner->thread->place : p;
    if (p.gpu != o.gpu || p.cta != o.cta)
      isa_rule_error(
          t_, a.in->loc,
          fmt::format("'{}' is .shared::cta memory of {} (line {}), but this {} access comes from "
                      "{}: another CTA "
                      "reaches it only through .shared::cluster addressing, within the cluster",
                      x, cta_name(o), owner->in->loc.line,
                      a.in->space == Space::Generic ? "generic" : ".shared::cta", cta_name(p)),
          "another CTA reaches a CTA's shared memory only through .shared::cluster addressing "
          "(PTX ISA, State Spaces: Shared)");
    const Placement& f = first->thread->place;
    if (p.gpu != f.gpu || p.cluster != f.cluster)
      isa_rule_error(
          t_, a.in->loc,
          fmt::format("'{}' is shared memory of {} (line {}), but this access comes from {} in {}: "
                      "shared memory "
                      "is not reachable outside its cluster",
                      x, cluster_name(f), first->in->loc.line, cta_name(p), cluster_name(p)),
          "shared memory is not reachable outside its cluster (PTX ISA, State Spaces: "
          "Shared)");
  }
}

// Initial bits per cell. A typed declaration lays its values out in memory
// (little-endian, each at the declared width) and the cells cut that memory
// up; an untyped one gives each cell's value at the cell's printed type.
void MemoryLayout::fill_init() {
  for (auto& [x, l] : locs_) {
    l.init.assign(l.count, 0);
    const InitEntry* e = decl_.at(x);
    if (!e) continue;
    const DataType at = e->type.value_or(l.cell);
    const unsigned vw = width_of(at), cw = width_of(l.cell);
    std::vector<std::uint8_t> bytes(l.count * cw / 8, 0);
    for (std::size_t i = 0; i < e->values.size(); ++i) {
      const Literal& lit = e->values[i];
      const auto bits = literal_bits(lit.text, at);
      if (!bits)
        input_error(t_, lit.loc,
                    is_packed(at)
                        ? fmt::format("'{}' is not a .{} value: write packed pairs as a 32-bit "
                                      "pattern such as 0x3c003c00",
                                      lit.text, to_string(at))
                        : fmt::format("'{}' is not a value of type .{} (the element type of '{}')",
                                      lit.text, to_string(at), x));
      for (unsigned b = 0; b < vw / 8 && i * vw / 8 + b < bytes.size(); ++b)
        bytes[i * vw / 8 + b] = static_cast<std::uint8_t>(*bits >> (8 * b));
    }
    for (std::size_t k = 0; k < l.count; ++k)
      for (unsigned b = 0; b < cw / 8; ++b)
        l.init[k] |= static_cast<std::uint64_t>(bytes[k * cw / 8 + b]) << (8 * b);
    if (!e->type && e->values.size() == 1 && !e->count)
      for (std::size_t k = 1; k < l.count; ++k) l.init[k] = l.init[0];
  }
}

// Lane `idx` of the declaration's layout, when the location's one cell is
// wider than the declared lanes (a whole-word access to `f16x2 h`): the
// final value's bits are known, so `h[1]` reads bits 16-31 as an f16, as
// herd users expect of a declared layout. Little-endian, as fill_init lays
// the declaration out.
std::optional<LaneView> MemoryLayout::lane_view(const std::string& base, const Location& l,
                                                std::size_t idx) const {
  const InitEntry* e = decl_.at(base);
  if (l.is_array || !e || !e->type || e->count) return std::nullopt;
  const DataType lane = lane_type(*e->type);
  const unsigned lw = width_of(lane), cw = width_of(l.cell);
  if (lw >= cw || idx >= cw / lw) return std::nullopt;
  return LaneView{base, static_cast<unsigned>(idx) * lw, lw, lane};
}

// Conditions name cells: `x` for a scalar, `v[1]` for an element, or a lane
// of a declaration inside a cell (lane_view).
void MemoryLayout::check_condition_cells() {
  auto check = [&](const CondTerm& term) {
    if (term.kind != CondTerm::Kind::Loc) return;
    const std::size_t br = term.name.find('[');
    const std::string base = term.name.substr(0, br);
    auto it = locs_.find(base);
    if (it == locs_.end()) return;  // reported by the frontend
    const Location& l = it->second;
    if (br == std::string::npos) {
      if (l.is_array)
        input_error(t_, term.loc,
                    fmt::format("'{}' has {} .{} elements: name one, as in {}[0]", base, l.count,
                                to_string(l.cell), base));
      return;
    }
    // "x[N]": N as the condition reader checked it (the shared integer reader).
    const std::string_view digits = std::string_view(term.name).substr(br + 1);
    const auto idx = static_cast<std::size_t>(
        detail::integer_at(digits.substr(0, digits.find(']')), false, t_.file, term.loc));
    if (const auto v = lane_view(base, l, idx)) {
      views_.emplace(term.name, *v);
      return;
    }
    if (!l.is_array)
      input_error(t_, term.loc, fmt::format("'{}' is not an array: name it '{}'", base, base));
    if (idx >= l.count)
      input_error(
          t_, term.loc,
          fmt::format("'{}' is out of bounds: '{}' has {} element(s)", term.name, base, l.count));
  };
  std::function<void(const CondExpr&)> walk = [&](const CondExpr& e) {
    if (e.kind == CondExpr::Kind::Cmp) {
      check(e.lhs);
      check(e.rhs);
    }
    for (const CondExpr& k : e.kids) walk(k);
  };
  walk(t_.condition);
  if (t_.filter) walk(*t_.filter);
  for (const CondTerm& term : t_.locations) check(term);
}

std::vector<CellAccess> MemoryLayout::cells(const Instruction& in) const {
  const std::string& x = in.addr->name;
  const Location& l = locs_.at(x);
  const DataType lane = lane_type(in.type);
  const unsigned lw = width_of(lane), k = lanes_of(in.type);
  const std::size_t first = static_cast<std::size_t>(in.addr->offset) / (lw / 8);
  std::vector<CellAccess> out;
  for (unsigned e = 0; e < in.vec; ++e)
    for (unsigned ln = 0; ln < k; ++ln)
      out.push_back(CellAccess{cell_name(x, l, first + e * k + ln), lane, e, ln, ln * lw});
  return out;
}

}  // namespace redscope::detail
