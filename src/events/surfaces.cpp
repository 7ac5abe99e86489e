// Surfaces and sured (see surfaces.hpp).
#include "events/surfaces.hpp"
#include "events/input_error.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

namespace redscope::detail {
namespace {

// The test's surfaces and register initial values, indexed once: each
// sured and each register looks them up, and a scan of the init block per
// lookup was quadratic (100,000 register inits: issue 28).
class InitIndex {
 public:
  explicit InitIndex(const LitmusTest& t) : written_(t.threads.size()) {
    std::uint64_t k = 0;
    for (const InitEntry& e : t.init) {
      if (!e.thread && e.surface) surfaces_.emplace(e.name, std::pair{&e, ++k});
      if (e.thread && e.values.size() == 1) regs_.emplace(std::pair{*e.thread, e.name}, &e);
    }
    for (std::size_t i = 0; i < t.threads.size(); ++i)
      for (const Instruction& in : t.threads[i].code) {
        if (in.dst) written_[i].insert(in.dst->name);
        for (const Operand& d : in.dsts) written_[i].insert(d.name);
      }
  }

  const InitEntry* surface(const std::string& name) const {
    const auto it = surfaces_.find(name);
    return it == surfaces_.end() ? nullptr : it->second.first;
  }
  std::uint64_t handle(const std::string& name) const {
    const auto it = surfaces_.find(name);
    return it == surfaces_.end() ? 0 : it->second.second;
  }
  // The init literal of a register the thread never writes, or null.
  const Literal* static_register(ThreadId tid, const std::string& reg) const {
    if (tid < 0 || static_cast<std::size_t>(tid) >= written_.size() ||
        written_[static_cast<std::size_t>(tid)].count(reg))
      return nullptr;
    const auto it = regs_.find(std::pair{static_cast<int>(tid), reg});
    return it == regs_.end() ? nullptr : &it->second->values.front();
  }

 private:
  std::map<std::string, std::pair<const InitEntry*, std::uint64_t>> surfaces_;  // entry, handle
  std::map<std::pair<int, std::string>, const InitEntry*> regs_;
  std::vector<std::set<std::string>> written_;  // per thread
};

class Resolver {
 public:
  Resolver(LitmusTest& t, const InitIndex& index) : t_(t), index_(index) {}

  void resolve(ThreadId tid, Instruction& in) {
    SuredSpec& sp = *in.sured;
    const InitEntry& surf = surface(tid, in, sp);
    std::vector<std::int64_t> c;
    // The geometry's coordinates; elements past them are ignored (.3d's w).
    for (std::size_t k = 0; k < std::min<std::size_t>(sp.coords.size(), sp.geom); ++k)
      c.push_back(coordinate(tid, sp.coords[k]));
    const std::size_t size = width_of(sp.ctype) / 8;
    const std::size_t sample = width_of(*surf.type) / 8;
    if (size != sample)
      input_error(t_, in.loc,
                  fmt::format("sured.{} accesses {} bytes but the samples of '{}' are {} bytes: "
                              "a partial sample is a mixed-size access, which redscope rejects",
                              to_string(sp.ctype), size, surf.name, sample));
    std::vector<std::size_t> dims = surf.dims;
    if (dims.size() != sp.geom)
      input_error(
          t_, in.loc,
          fmt::format("a .{}d sured on '{}', a {}d surface", sp.geom, surf.name, dims.size()));
    // .b: the lowest coordinate is a byte offset, not scaled; .p: a sample
    // offset, scaled by the data size (seed "Description").
    const std::int64_t bytes = sp.byte_addressing ? c[0] : c[0] * static_cast<std::int64_t>(size);
    if (bytes % static_cast<std::int64_t>(size) != 0) {
      sp.effect = SuredEffect::Undefined;
      sp.reason = fmt::format(
          "sured at byte offset {} of '{}', not a multiple of its {}-byte "
          "access (the seed: misaligned addresses are undefined)",
          bytes, surf.name, size);
      return drop(in);
    }
    c[0] = bytes / static_cast<std::int64_t>(size);
    bool out = false;
    for (std::size_t k = 0; k < dims.size(); ++k) {
      const auto d = static_cast<std::int64_t>(dims[k]);
      if (c[k] < 0 || c[k] >= d) {
        out = true;
        if (sp.clamp == SurfaceClamp::Clamp) c[k] = std::clamp<std::int64_t>(c[k], 0, d - 1);
      }
    }
    if (out && sp.clamp != SurfaceClamp::Clamp) {
      sp.effect = sp.clamp == SurfaceClamp::Trap ? SuredEffect::Trap : SuredEffect::Drop;
      return drop(in);
    }
    std::int64_t index = 0;
    for (std::size_t k = dims.size(); k-- > 0;)
      index = index * static_cast<std::int64_t>(dims[k]) + c[k];
    in.addr = Operand{Operand::Kind::Loc, surf.name, 0, index * static_cast<std::int64_t>(size),
                      in.addr->loc,       {}};
    // .b32/.b64 under .p are read as the format says: UINT or SINT.
    if (!sp.byte_addressing) in.type = *surf.type;
    in.text += fmt::format("  // {}[{}]", surf.name, index);
  }

 private:
  const InitEntry& surface(ThreadId tid, Instruction& in, SuredSpec& sp) {
    if (const InitEntry* s = index_.surface(sp.surface)) return *s;
    // Indirect: a .u64 register the init block sets to a surface.
    const Literal* lit = index_.static_register(tid, sp.surface);
    if (lit)
      if (const InitEntry* s = index_.surface(lit->text)) {
        sp.handle = *in.addr;
        sp.surface = s->name;
        return *s;
      }
    input_error(t_, in.addr->loc,
                fmt::format("'{}' is neither a surface nor a register the init block sets to one "
                            "(P{}:{} = SURFACE) and the thread never writes",
                            sp.surface, tid, sp.surface));
  }

  std::int64_t coordinate(ThreadId tid, const Operand& o) {
    if (o.kind == Operand::Kind::Imm) return static_cast<std::int32_t>(o.value);
    if (const Literal* lit = index_.static_register(tid, o.name))
      if (auto v = literal_bits(lit->text, DataType::S32)) return static_cast<std::int32_t>(*v);
    input_error(t_, o.loc,
                fmt::format("sured coordinate '{}': a constant, or a register the init block "
                            "sets and the thread never writes (redscope resolves surface "
                            "addresses before the search)",
                            o.name));
  }

  // A sured that touches no memory: nothing to lay out.
  static void drop(Instruction& in) { in.addr.reset(); }

  LitmusTest& t_;
  const InitIndex& index_;
};

}  // namespace

std::uint64_t surface_handle(const LitmusTest& t, const std::string& name) {
  std::uint64_t k = 0;
  for (const InitEntry& e : t.init)
    if (!e.thread && e.surface) {
      ++k;
      if (e.name == name) return k;
    }
  return 0;
}

void resolve_surfaces(LitmusTest& t) {
  std::vector<std::pair<InitEntry*, std::uint64_t>> handles;
  {
    const InitIndex index(t);  // points into t.init: dropped before it changes
    Resolver r(t, index);
    for (std::size_t i = 0; i < t.threads.size(); ++i)
      for (Instruction& in : t.threads[i].code)
        if (in.sured) r.resolve(static_cast<ThreadId>(i), in);
    // Registers set to a surface hold its handle (a number), like an address.
    for (InitEntry& e : t.init)
      if (e.thread && e.values.size() == 1)
        if (const std::uint64_t k = index.handle(e.values.front().text))
          handles.emplace_back(&e, k);
  }
  for (auto& [e, k] : handles) e->values.front().text = std::to_string(k);
}

}  // namespace redscope::detail
