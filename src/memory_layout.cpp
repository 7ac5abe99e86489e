// Memory layout: declarations, inference of undeclared locations, and the
// access checks of PTX §8.2 (the model relates only accesses that overlap
// completely, so every access must cover whole cells of one element type).
#include "memory_layout.hpp"

#include <functional>

#include <fmt/format.h>

namespace redscope::detail {
namespace {

[[noreturn]] void input_error(const LitmusTest& t, SourceLoc at, std::string msg) {
  throw InputError(Diagnostic{t.file, at, std::move(msg)});
}

bool is_shared(Space s) { return s == Space::SharedCta || s == Space::SharedCluster; }

template <class F>
void for_each_access(const LitmusTest& t, F f) {
  for (const ThreadCode& tc : t.threads)
    for (const Instruction& in : tc.code)
      if (in.addr) f(in, tc);
}

}  // namespace

std::string cell_name(const std::string& base, const Location& l, std::size_t i) {
  return l.is_array ? fmt::format("{}[{}]", base, i) : base;
}

MemoryLayout::MemoryLayout(const LitmusTest& t) : t_(t) {
  for (const InitEntry& e : t.init)
    if (!e.thread) decl_[e.name] = &e;
  // Element type: declared, else the narrowest lane any access uses.
  std::map<std::string, DataType> narrowest;
  for_each_access(t, [&](const Instruction& in, const ThreadCode&) {
    const DataType lane = lane_type(in.type);
    auto it = narrowest.find(in.addr->name);
    if (it == narrowest.end()) narrowest.emplace(in.addr->name, lane);
    else if (width_of(lane) < width_of(it->second)) it->second = lane;
    decl_.emplace(in.addr->name, nullptr);
  });
  for (const auto& [name, e] : decl_) {
    Location l;
    if (e && e->type) l.cell = lane_type(*e->type);
    else if (narrowest.count(name)) l.cell = narrowest.at(name);
    if (e && e->type) l.count = (e->count ? *e->count : 1) * lanes_of(*e->type);
    else if (e && e->count) l.count = *e->count;
    else l.count = 0;  // sized by its accesses
    l.is_array = (e && e->count) || l.count > 1;
    if (e && e->space) l.space = *e->space;
    locs_.emplace(name, l);
  }
  size_locations();
  check_spaces();
  fill_init();
  check_condition_cells();
}

// Every access covers whole, aligned cells inside its location.
void MemoryLayout::size_locations() {
  for_each_access(t_, [&](const Instruction& in, const ThreadCode&) {
    const std::string& x = in.addr->name;
    Location& l = locs_.at(x);
    const InitEntry* e = decl_.at(x);
    const unsigned wa = width_of(in.type), wc = width_of(l.cell);
    // Wider accesses may cover several cells only over 16-bit float lanes (a
    // packed f16x2/bf16x2 value, or a .b32 view of one): the seed makes those
    // per-lane accesses. Elsewhere PTX's model needs complete overlap (§8.2).
    const bool lanes = l.cell == DataType::F16 || l.cell == DataType::BF16;
    if (wa < wc || wa % wc != 0 || (wa > wc && !lanes))
      input_error(t_, in.loc, fmt::format("mixed-size access to '{}': .{} here, but '{}' holds .{} elements (the model covers only accesses that overlap completely)",
                                          x, to_string(in.type), x, to_string(l.cell)));
    const std::int64_t cell_bytes = wc / 8, unit_bytes = static_cast<std::int64_t>(in.vec * wa / 8);
    if (in.addr->offset % cell_bytes != 0 || in.addr->offset % unit_bytes != 0)
      input_error(t_, in.addr->loc, fmt::format("misaligned access: offset {} of '{}' is not a multiple of the {}-byte access size", in.addr->offset, x, unit_bytes));
    const std::size_t end = static_cast<std::size_t>(in.addr->offset / cell_bytes) + in.vec * (wa / wc);
    const bool fixed = e && (e->count || e->type);
    if (fixed && end > l.count)
      input_error(t_, in.addr->loc, fmt::format("access past the end of '{}': it has {} .{} element(s)", x, l.count, to_string(l.cell)));
    if (!fixed) l.count = std::max(l.count, end);
  });
  for (auto& [x, l] : locs_) {
    if (l.count == 0) l.count = 1;
    l.is_array = l.is_array || l.count > 1;
  }
}

// Global and shared memory are different places, and shared memory is
// private to its CTA (.shared::cta) or cluster (.shared::cluster).
void MemoryLayout::check_spaces() {
  std::map<std::string, std::pair<Space, SourceLoc>> seen;
  std::map<std::string, std::pair<int, SourceLoc>> owner;
  for (const auto& [x, e] : decl_)
    if (e && e->space) seen.emplace(x, std::make_pair(*e->space, e->loc));
  for_each_access(t_, [&](const Instruction& in, const ThreadCode& tc) {
    const std::string& x = in.addr->name;
    if (in.space == Space::Generic) return;
    auto it = seen.find(x);
    if (it == seen.end()) { seen.emplace(x, std::make_pair(in.space, in.loc)); }
    else if (is_shared(it->second.first) != is_shared(in.space))
      input_error(t_, in.loc, fmt::format("'{}' is accessed as .{} here but is .{} (line {})", x, to_string(in.space), to_string(it->second.first), it->second.second.line));
    if (!is_shared(in.space)) return;
    const bool cta = locs_.at(x).space != Space::SharedCluster && in.space == Space::SharedCta;
    const int id = cta ? tc.place.cta : tc.place.cluster;
    auto [o, fresh] = owner.emplace(x, std::make_pair(id, in.loc));
    if (!fresh && o->second.first != id)
      input_error(t_, in.loc, fmt::format("'{}' is {} shared memory (line {}) but is accessed from another {} here: shared memory is private to its {}",
                                          x, cta ? "CTA" : "cluster", o->second.second.line, cta ? "CTA" : "cluster", cta ? "CTA" : "cluster"));
  });
  // Resolve generic accesses: a location lives where its non-generic accesses or declaration put it.
  for (const auto& [x, s] : seen) locs_.at(x).space = s.first;
}

// Initial bits per cell; a packed declaration's value fills two lanes.
void MemoryLayout::fill_init() {
  for (auto& [x, l] : locs_) {
    l.init.assign(l.count, 0);
    const InitEntry* e = decl_.at(x);
    if (!e) continue;
    const DataType at = e->type.value_or(l.cell);
    const std::size_t per = lanes_of(at), lw = width_of(l.cell);
    for (std::size_t i = 0; i < e->values.size(); ++i) {
      const Literal& lit = e->values[i];
      const auto bits = literal_bits(lit.text, at);
      if (!bits)
        input_error(t_, lit.loc, is_packed(at) ? fmt::format("'{}' is not a .{} value: write packed pairs as a 32-bit pattern such as 0x3c003c00", lit.text, to_string(at))
                                               : fmt::format("'{}' is not a value of type .{} (the element type of '{}')", lit.text, to_string(at), x));
      for (std::size_t k = 0; k < per && i * per + k < l.count; ++k)
        l.init[i * per + k] = (*bits >> (k * lw)) & (lw == 64 ? ~0ULL : ((1ULL << lw) - 1));
    }
    if (e->values.size() == 1 && !e->count)
      for (std::size_t k = per; k < l.count; ++k) l.init[k] = l.init[k % per];
  }
}

// Conditions name cells: `x` for a scalar, `v[1]` for an element.
void MemoryLayout::check_condition_cells() const {
  auto check = [&](const CondTerm& term) {
    if (term.kind != CondTerm::Kind::Loc) return;
    const std::size_t br = term.name.find('[');
    const std::string base = term.name.substr(0, br);
    auto it = locs_.find(base);
    if (it == locs_.end()) return;  // reported by the frontend
    const Location& l = it->second;
    if (br == std::string::npos) {
      if (l.is_array) input_error(t_, term.loc, fmt::format("'{}' has {} .{} elements: name one, as in {}[0]", base, l.count, to_string(l.cell), base));
      return;
    }
    const std::size_t idx = std::stoul(term.name.substr(br + 1));
    if (!l.is_array) input_error(t_, term.loc, fmt::format("'{}' is not an array: name it '{}'", base, base));
    if (idx >= l.count) input_error(t_, term.loc, fmt::format("'{}' is out of bounds: '{}' has {} element(s)", term.name, base, l.count));
  };
  std::function<void(const CondExpr&)> walk = [&](const CondExpr& e) {
    if (e.kind == CondExpr::Kind::Cmp) { check(e.lhs); check(e.rhs); }
    for (const CondExpr& k : e.kids) walk(k);
  };
  walk(t_.condition);
  if (t_.filter) walk(*t_.filter);
  for (const CondTerm& term : t_.locations) check(term);
}

std::vector<CellAccess> MemoryLayout::cells(const Instruction& in) const {
  const std::string& x = in.addr->name;
  const Location& l = locs_.at(x);
  const unsigned wc = width_of(l.cell), k = width_of(in.type) / wc;
  const std::size_t first = static_cast<std::size_t>(in.addr->offset) / (wc / 8);
  std::vector<CellAccess> out;
  for (unsigned e = 0; e < in.vec; ++e)
    for (unsigned lane = 0; lane < k; ++lane)
      out.push_back(CellAccess{cell_name(x, l, first + e * k + lane), l.cell, e, lane, lane * wc});
  return out;
}

}  // namespace redscope::detail
