// The random differential tester: generator, three-engine driver, runs.
// See tests/differential.hpp and docs/testing.md "The differential tester".
#include "differential.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <random>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "redscope/core/budget.hpp"
#include "redscope/core/diagnostic.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"
#include "redscope/engine/machine/machine.hpp"
#include "redscope/engine/z3/z3.hpp"
#include "redscope/events/events.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/model/cat.hpp"

namespace redscope::differential {

namespace {

constexpr std::string_view kNames[] = {"access", "rmw",  "fence",  "barrier", "placement", "shared",
                                       "sm60",   "deps", "vector", "proxy",   "surface",   "bulk"};
constexpr std::size_t kFeatureCount = sizeof(kNames) / sizeof(kNames[0]);

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// ---------------------------------------------------------------------------
// The generator: one draft of a test from one random stream.

struct Place {
  int gpu = 0, cta = 0, cluster = -1;  // cluster -1: not written (a cluster of its own)
};

enum class LocKind : std::uint8_t { Global, Shared, Vector, Surface, Multimem, Source };

struct Loc {
  std::string name;
  LocKind kind = LocKind::Global;
  unsigned bits = 32;  // element (sample, cell) size
  unsigned elems = 1;  // elements (2d surfaces: width * height)
  unsigned width = 0;  // 2d surfaces: the width (0: 1d)
  bool signed_surface = false;
  bool decl_cluster = false;  // shared, declared .shared::cluster
  int owner = -1;             // shared: a thread of the CTA that owns it
  std::vector<int> reach;     // shared: the threads that may access it
  std::vector<std::string> init;
  // Aliases (proxy feature): name per proxy, empty when none.
  std::string generic_alias, surface_alias, texture_alias, constant_alias;
};

Loc make_loc(std::string name, LocKind kind, unsigned bits = 32, unsigned elems = 1) {
  Loc l;
  l.name = std::move(name);
  l.kind = kind;
  l.bits = bits;
  l.elems = elems;
  return l;
}

struct Reg {
  std::string name;
  unsigned bits = 32;
};

class Draft {
 public:
  Draft(std::uint64_t seed, const GenOptions& o) : rng_(seed), o_(o), f_(o.features) {}

  std::string make(const std::string& name) {
    sm60_ = (f_ & kSm60) && chance(33);
    if (sm60_) used_ |= kSm60;
    // Each draft exercises a random part of the optional features, so that
    // tests stay small.
    const bool shared = (sm60_ || (f_ & kShared)) && chance(sm60_ ? 70 : 40);
    const bool vector = !sm60_ && (f_ & kVector) && chance(25);
    const bool proxy = !sm60_ && (f_ & kProxy) && chance(50);
    const bool surface = !sm60_ && (f_ & kSurface) && chance(45);
    const bool bulk = !sm60_ && (f_ & kBulk) && chance(45);
    threads();
    locations(shared, vector, proxy, surface, bulk);
    code_.assign(places_.size(), {});
    regs_.assign(places_.size(), {});
    counters_.assign(places_.size(), 0);
    // Instructions per thread, within the test's total: the engines' work
    // grows with the writes to one location far more than with threads.
    int left = std::max(static_cast<int>(places_.size()), o_.max_total);
    for (int t = 0; t < static_cast<int>(places_.size()); ++t) {
      const int rest = static_cast<int>(places_.size()) - t - 1;  // one each at least
      const int cap = std::min(o_.max_instructions, left - rest);
      const int n = 1 + static_cast<int>(below(std::max(1, cap)));
      for (int i = 0; i < n; ++i) instruction(t);
      if (code_[t].empty()) fallback(t);
      left -= n;
    }
    return render(name);
  }
  std::uint32_t used() const { return used_; }

 private:
  std::mt19937_64 rng_;
  const GenOptions& o_;
  std::uint32_t f_;
  std::uint32_t used_ = 0;
  bool sm60_ = false;
  std::vector<Place> places_;
  std::vector<Loc> locs_;
  std::vector<std::string> reg_init_;  // "P0:%h0 = 1.0"
  std::vector<std::vector<std::string>> code_;
  std::vector<std::vector<Reg>> regs_;  // integer registers loaded so far, per thread
  std::vector<int> counters_;           // fresh register numbers, per thread
  std::vector<std::string> observed_;   // what the condition may name
  int labels_ = 0;
  int bulks_ = 0;  // bulk reductions so far

  std::size_t below(std::size_t n) { return n ? rng_() % n : 0; }
  bool chance(int percent) { return static_cast<int>(below(100)) < percent; }
  std::string pick(std::initializer_list<std::string_view> xs) {
    return std::string(*(xs.begin() + below(xs.size())));
  }
  template <class T>
  const T& pick(const std::vector<T>& xs) {
    return xs[below(xs.size())];
  }
  std::string fresh(int t, std::string_view prefix) {
    return fmt::format("{}{}", prefix, counters_[t]++);
  }
  std::string reg_label(int t, const std::string& r) { return fmt::format("P{}:{}", t, r); }

  // --- threads and places ---------------------------------------------------
  void threads() {
    const int lo = std::max(1, o_.min_threads), hi = std::max(lo, o_.max_threads);
    int n = lo;
    while (n < hi && chance(n == 2 ? 45 : 35)) ++n;
    const bool many = (f_ & kPlacement) != 0;
    const bool clusters = many && !sm60_ && chance(40);
    std::map<std::pair<int, int>, int> cluster_of;
    for (int t = 0; t < n; ++t) {
      Place p;
      p.gpu = many && chance(30) ? 1 : 0;
      p.cta = static_cast<int>(below(many ? 3 : 2));
      if (clusters) {
        auto [it, fresh_cta] = cluster_of.try_emplace({p.gpu, p.cta}, 0);
        if (fresh_cta) it->second = static_cast<int>(below(2));
        p.cluster = it->second;
      }
      places_.push_back(p);
    }
    bool several_gpus = false, clustered = clusters;
    for (const Place& p : places_) several_gpus |= p.gpu != 0;
    if (several_gpus || clustered) used_ |= kPlacement;
  }
  bool same_cta(int a, int b) const {
    return places_[a].gpu == places_[b].gpu && places_[a].cta == places_[b].cta;
  }
  bool same_cluster(int a, int b) const {
    if (same_cta(a, b)) return true;
    return places_[a].gpu == places_[b].gpu && places_[a].cluster >= 0 &&
           places_[a].cluster == places_[b].cluster;
  }

  // --- locations ------------------------------------------------------------
  void locations(bool shared, bool vector, bool proxy, bool surface, bool bulk) {
    std::vector<Loc> special;
    if (vector) {
      Loc v = make_loc("v", LocKind::Vector, 32, 2);
      v.init = {"0", "0"};
      special.push_back(v);
      used_ |= kVector;
    }
    if (surface) {
      Loc s = make_loc("sA", LocKind::Surface);
      s.bits = chance(75) ? 32 : 64;
      s.signed_surface = chance(30);
      if (chance(25)) {
        s.width = 2;
        s.elems = 4;
      } else {
        s.elems = 2;
      }
      s.init.assign(s.elems, "0");
      special.push_back(s);
      used_ |= kSurface;
    }
    if (bulk) {
      Loc m = make_loc("m", LocKind::Multimem);
      m.bits = chance(80) ? 64 : 32;  // 2 elements (or 4) per replica
      m.elems = 128 / m.bits;
      m.init.assign(m.elems, "0");
      special.push_back(m);
      used_ |= kBulk;
    }
    const int total = std::max(static_cast<int>(special.size()),
                               1 + static_cast<int>(below(std::max(1, o_.max_locations))));
    const int scalars = total - static_cast<int>(special.size());
    static const char* const kScalar[] = {"x", "y", "z", "w"};
    for (int i = 0; i < scalars && i < 4; ++i) {
      Loc l = make_loc(kScalar[i], LocKind::Global);
      // The first location stays global, so every thread reaches something.
      if (shared && (i > 0 || !special.empty() || chance(50))) {
        l.kind = LocKind::Shared;
        l.owner = static_cast<int>(below(places_.size()));
        for (int t = 0; t < static_cast<int>(places_.size()); ++t)
          if (sm60_ ? same_cta(t, l.owner) : same_cluster(t, l.owner)) l.reach.push_back(t);
        bool other_cta = false;
        for (int t : l.reach) other_cta |= !same_cta(t, l.owner);
        l.decl_cluster = other_cta && chance(50);
        l.bits = chance(80) ? 32 : 64;
        if (!sm60_) used_ |= kShared;
      } else {
        const int r = static_cast<int>(below(100));
        l.bits = r < 72 ? 32 : r < 92 ? 64 : 16;
        // 16-bit cells are for the half-precision adds (sm_70, bf16 sm_90).
        if (l.bits == 16 && (!(f_ & kRmw) || sm60_)) l.bits = 32;
      }
      l.init = {chance(80) ? "0" : std::to_string(1 + below(5))};
      if (proxy && l.kind == LocKind::Global && l.bits == 32) {
        if (chance(60)) l.generic_alias = l.name + "g";
        if (chance(50)) l.surface_alias = l.name + "s";
        if (chance(35)) l.texture_alias = l.name + "t";
        if (chance(35)) l.constant_alias = l.name + "c";
      }
      locs_.push_back(l);
    }
    for (Loc& s : special) locs_.push_back(std::move(s));
    for (const Loc& l : locs_)
      if (!l.generic_alias.empty() || !l.surface_alias.empty() || !l.texture_alias.empty() ||
          !l.constant_alias.empty())
        used_ |= kProxy;
  }
  std::size_t find(const std::string& name) const {
    for (std::size_t i = 0; i < locs_.size(); ++i)
      if (locs_[i].name == name) return i;
    return locs_.size();
  }
  const Loc* source_of(int t) const {
    for (const Loc& l : locs_)
      if (l.kind == LocKind::Source && std::count(l.reach.begin(), l.reach.end(), t)) return &l;
    return nullptr;
  }
  bool reaches(int t, const Loc& l) const {
    if (l.kind == LocKind::Shared || l.kind == LocKind::Source)
      return std::count(l.reach.begin(), l.reach.end(), t) > 0;
    return true;
  }
  // Locations `t` may access with a scalar access (`bits` 0: any size).
  std::vector<const Loc*> scalar_targets(int t, unsigned bits = 0) const {
    std::vector<const Loc*> out;
    for (const Loc& l : locs_)
      if (reaches(t, l) && (bits == 0 || l.bits == bits)) out.push_back(&l);
    return out;
  }

  // The state space written on an access of `t` to `l` ("" for generic).
  std::string space(int t, const Loc& l) {
    switch (l.kind) {
      case LocKind::Shared:
      case LocKind::Source: {
        if (sm60_) return pick({".shared", "", ".shared::cta"});
        if (same_cta(t, l.owner)) {
          if (l.decl_cluster) return pick({".shared", ".shared::cta", ".shared::cluster", ""});
          return pick({".shared", ".shared::cta", ".shared::cluster", "", ""});
        }
        return l.decl_cluster ? pick({".shared::cluster", ""}) : ".shared::cluster";
      }
      case LocKind::Multimem: return "";
      default: return pick({".global", ""});
    }
  }
  // An address of one element of `l`, through an alias now and then.
  std::string address(const Loc& l, bool allow_alias = true) {
    std::string base = l.name;
    if (allow_alias && chance(40)) {
      std::vector<std::string> names;
      for (const std::string* a :
           {&l.generic_alias, &l.surface_alias, &l.texture_alias, &l.constant_alias})
        if (!a->empty()) names.push_back(*a);
      if (!names.empty()) base = pick(names);
    }
    const unsigned k = static_cast<unsigned>(below(l.elems));
    if (k == 0) return "[" + base + "]";
    return fmt::format("[{}+{}]", base, k * l.bits / 8);
  }
  std::string scope() {
    return sm60_ ? pick({"cta", "gpu", "sys"}) : pick({"cta", "cluster", "gpu", "sys"});
  }
  // An element-size type for ld/st.
  std::string ldst_type(unsigned bits, bool allow_float) {
    switch (bits) {
      case 16: return pick({"b16", "u16", "s16"});
      case 64: return allow_float && chance(15) ? "f64" : pick({"u64", "s64", "b64"});
      default: return allow_float && chance(15) ? "f32" : pick({"u32", "s32", "b32"});
    }
  }
  std::string imm(const std::string& type) {
    if (type[0] == 'f') return pick({"1.0", "2.0", "0.5"});
    if (type[0] == 's' && chance(25)) return "-1";
    return std::to_string(1 + below(3));
  }
  void note_reg(int t, const std::string& r, const std::string& type) {
    observed_.push_back(reg_label(t, r));
    if (type.find('f') == std::string::npos)
      regs_[t].push_back(Reg{r, static_cast<unsigned>(std::stoi(type.substr(1)))});
  }

  // --- instructions -----------------------------------------------------------
  enum class Kind : std::uint8_t {
    Load,
    Store,
    Rmw,
    Fence,
    Barrier,
    Dep,
    Guard,
    Branch,
    Vector,
    ProxyAccess,
    ProxyFence,
    Sured,
    Bulk,
    AsyncFence
  };

  void instruction(int t) {
    std::vector<std::pair<Kind, int>> kinds;
    auto add = [&](Kind k, int w, bool on) {
      if (on) kinds.emplace_back(k, w);
    };
    const bool aliases = (used_ & kProxy) != 0, surface = find("sA") < locs_.size(),
               multimem = find("m") < locs_.size(), vector = find("v") < locs_.size();
    add(Kind::Load, 24, (f_ & kAccess) != 0);
    add(Kind::Store, 20, (f_ & kAccess) != 0);
    add(Kind::Rmw, 24, (f_ & kRmw) != 0);
    add(Kind::Fence, 10, (f_ & kFence) != 0);
    add(Kind::Barrier, 6, (f_ & kBarrier) != 0);
    add(Kind::Dep, 8, (f_ & kDeps) && !regs_[t].empty());
    add(Kind::Guard, 4, (f_ & kDeps) && !regs_[t].empty());
    add(Kind::Branch, 4, (f_ & kDeps) && !regs_[t].empty());
    add(Kind::Vector, 14, vector);
    add(Kind::ProxyAccess, 16, aliases || surface);
    add(Kind::ProxyFence, 8, aliases || surface);
    add(Kind::Sured, 18, surface);
    add(Kind::Bulk, 12, multimem && bulks_ < 2);  // each is 2-4 loads and 4-8 RMWs
    add(Kind::AsyncFence, 4, multimem);
    if (kinds.empty()) return;
    int total = 0;
    for (auto& [k, w] : kinds) total += w;
    for (int tries = 0; tries < 20; ++tries) {
      int r = static_cast<int>(below(total));
      Kind k = kinds.back().first;
      for (auto& [kk, w] : kinds) {
        if (r < w) {
          k = kk;
          break;
        }
        r -= w;
      }
      if (emit(t, k)) return;
    }
  }

  void fallback(int t) {
    if ((f_ & kFence) || sm60_) {
      code_[t].push_back(sm60_ ? "membar.gl" : "fence.sc.gpu");
      used_ |= kFence;
    } else if (!emit(t, Kind::Load) && !emit(t, Kind::Store) && !emit(t, Kind::Rmw)) {
      code_[t].push_back("bar.cta.sync 0");
      used_ |= kBarrier;
    }
  }

  bool emit(int t, Kind k) {
    switch (k) {
      case Kind::Load: return load(t, "");
      case Kind::Store: return store(t, "");
      case Kind::Rmw: return rmw(t, "");
      case Kind::Fence: return fence(t);
      case Kind::Barrier: return barrier(t);
      case Kind::Dep: return dep(t);
      case Kind::Guard: return guard(t);
      case Kind::Branch: return branch(t);
      case Kind::Vector: return vector(t);
      case Kind::ProxyAccess: return proxy_access(t);
      case Kind::ProxyFence: return proxy_fence(t);
      case Kind::Sured: return sured(t);
      case Kind::Bulk: return bulk(t);
      case Kind::AsyncFence:
        code_[t].push_back(
            pick({"fence.proxy.async", "fence.proxy.async.global", "fence.proxy.async.shared::cta",
                  "fence.proxy.async.shared::cluster"}));
        used_ |= kBulk;
        return true;
    }
    return false;
  }

  // Dat3M's untyped forms (.s32): 32-bit global scalars, sm_70 and later.
  bool untyped_ok(const Loc& l) const {
    return !sm60_ && l.kind == LocKind::Global && l.bits == 32 && l.elems == 1;
  }

  bool load(int t, const std::string& guard) {
    const auto targets = scalar_targets(t);
    if (targets.empty()) return false;
    const Loc& l = *pick(targets);
    const std::string r = fresh(t, "r");
    if (untyped_ok(l) && chance(20)) {
      const std::string s = pick({"weak", "relaxed." + scope(), "acquire." + scope()});
      code_[t].push_back(fmt::format("{}ld.{} {}, {}", guard, s, r, l.name));
      note_reg(t, r, "s32");
    } else {
      const std::string sem =
          sm60_ ? pick({"", ".volatile"})
                : pick({".weak", "", ".relaxed." + scope(), ".acquire." + scope(), ".volatile"});
      const std::string type = ldst_type(l.bits, l.kind != LocKind::Surface);
      code_[t].push_back(
          fmt::format("{}ld{}{}.{} {}, {}", guard, sem, space(t, l), type, r, address(l)));
      note_reg(t, r, type);
    }
    used_ |= kAccess;
    return true;
  }

  std::string store_sem() {
    return sm60_ ? pick({"", ".volatile"})
                 : pick({".weak", "", ".relaxed." + scope(), ".release." + scope(), ".volatile"});
  }

  bool store(int t, const std::string& guard) {
    const auto targets = scalar_targets(t);
    if (targets.empty()) return false;
    const Loc& l = *pick(targets);
    if (untyped_ok(l) && chance(20)) {
      const std::string s = pick({"weak", "relaxed." + scope(), "release." + scope()});
      code_[t].push_back(fmt::format("{}st.{} {}, {}", guard, s, l.name, 1 + below(3)));
    } else {
      const std::string type = ldst_type(l.bits, l.kind != LocKind::Surface);
      code_[t].push_back(fmt::format("{}st{}{}.{} {}, {}", guard, store_sem(), space(t, l), type,
                                     address(l), imm(type)));
    }
    used_ |= kAccess;
    return true;
  }

  // op.type of red/atom for an element of `bits` bits (atom: exch, cas too).
  std::string rmw_op(unsigned bits, bool atom) {
    if (bits == 16) return pick({"add.noftz.f16", "add.noftz.bf16"});
    if (bits == 64) {
      if (atom && chance(20)) return pick({"exch.b64", "cas.b64"});
      return pick({"add.u64", "add.f64", "min.u64", "min.s64", "max.u64", "max.s64", "and.b64",
                   "or.b64", "xor.b64"});
    }
    if (atom && chance(20)) return pick({"exch.b32", "cas.b32"});
    return pick({"add.u32", "add.s32", "add.f32", "min.u32", "min.s32", "max.u32", "max.s32",
                 "inc.u32", "dec.u32", "and.b32", "or.b32", "xor.b32"});
  }
  std::string rmw_value(int t, const std::string& op) {
    const std::string type = op.substr(op.rfind('.') + 1);
    if (type == "f16" || type == "bf16") {
      const std::string h = fresh(t, "%h");
      reg_init_.push_back(fmt::format("P{}:{} = {};", t, h, pick({"1.0", "0.5", "2.0"})));
      return h;
    }
    if (op.starts_with("inc") || op.starts_with("dec")) return std::to_string(1 + below(3));
    if (op.starts_with("cas")) return fmt::format("{}, {}", below(3), 1 + below(3));
    return imm(type);
  }

  bool rmw(int t, const std::string& guard) {
    const auto targets = scalar_targets(t);
    if (targets.empty()) return false;
    const Loc& l = *pick(targets);
    if (l.kind == LocKind::Surface && chance(50)) return false;  // sured's job
    const bool atom = chance(50);
    const std::string r = atom ? fresh(t, "r") : "";
    if (untyped_ok(l) && chance(20)) {
      const std::string sem = pick({"relaxed", "acquire", "release", "acq_rel"});
      const std::string sc = scope();
      if (atom) {
        const std::string op = pick({"add", "sub", "exch", "cas"});
        const std::string val =
            op == "cas" ? fmt::format("{}, {}", below(3), 1 + below(3)) : imm("s32");
        code_[t].push_back(
            fmt::format("{}atom.{}.{}.{} {}, {}, {}", guard, sem, sc, op, r, l.name, val));
        note_reg(t, r, "s32");
      } else {
        code_[t].push_back(fmt::format("{}red.{}.{}.{} {}, {}", guard,
                                       sem == "acquire" ? "relaxed" : sem, sc, pick({"add", "sub"}),
                                       l.name, imm("s32")));
      }
      used_ |= kRmw;
      return true;
    }
    const std::string op = rmw_op(l.bits, atom);
    std::string sem;
    if (!sm60_)
      sem = atom ? pick({"", ".relaxed", ".acquire", ".release", ".acq_rel"})
                 : pick({"", ".relaxed", ".release"});
    const std::string sc = chance(20) ? "" : "." + scope();
    const std::string val = rmw_value(t, op);
    const std::string head =
        fmt::format("{}{}{}{}{}.{}", guard, atom ? "atom" : "red", sem, sc, space(t, l), op);
    if (atom) {
      code_[t].push_back(fmt::format("{} {}, {}, {}", head, r, address(l), val));
      note_reg(t, r, op.substr(op.rfind('.') + 1));
    } else {
      code_[t].push_back(fmt::format("{} {}, {}", head, address(l), val));
    }
    used_ |= kRmw;
    return true;
  }

  bool fence(int t) {
    if (sm60_ || chance(15))
      code_[t].push_back(pick({"membar.cta", "membar.gl", "membar.sys"}));
    else
      code_[t].push_back(fmt::format("fence{}.{}", pick({".sc", ".acq_rel", ""}), scope()));
    used_ |= kFence;
    return true;
  }

  bool barrier(int t) {
    int in_cta = 0;
    for (int u = 0; u < static_cast<int>(places_.size()); ++u) in_cta += same_cta(t, u);
    const std::string kind = chance(75) ? "sync" : "arrive";
    const int a = static_cast<int>(below(2));
    const int form = static_cast<int>(below(4));
    if (form <= 1)
      code_[t].push_back(fmt::format("bar.cta.{} {}", kind, a));
    else if (form == 2)
      code_[t].push_back(fmt::format("bar.cta.{} {}, {}", kind, a, below(2)));
    else
      code_[t].push_back(fmt::format("bar.cta.{} {}, {}, {}", kind, a, below(2),
                                     1 + below(static_cast<std::size_t>(in_cta) + 1)));
    used_ |= kBarrier;
    return true;
  }

  // A store (or red, or exch) of a loaded value, or of a value computed from one.
  bool dep(int t) {
    Reg src = pick(regs_[t]);
    if (chance(25)) {
      const std::string r = fresh(t, "r");
      code_[t].push_back(fmt::format("add.u{} {}, {}, 1", src.bits, r, src.name));
      regs_[t].push_back(Reg{r, src.bits});
      src = regs_[t].back();
    }
    const auto targets = scalar_targets(t, src.bits);
    if (targets.empty()) return false;
    const Loc& l = *pick(targets);
    const std::string type = fmt::format("{}{}", pick({"u", "b"}), src.bits);
    const int how = static_cast<int>(below(4));
    if (how <= 1 || src.bits == 16 || l.kind == LocKind::Surface) {
      code_[t].push_back(
          fmt::format("st{}{}.{} {}, {}", store_sem(), space(t, l), type, address(l), src.name));
    } else if (how == 2) {
      code_[t].push_back(fmt::format("red{}{}.add.u{} {}, {}",
                                     sm60_ ? "" : pick({"", ".relaxed", ".release"}), space(t, l),
                                     src.bits, address(l), src.name));
      used_ |= kRmw;
    } else {
      const std::string r = fresh(t, "r");
      code_[t].push_back(fmt::format("atom{}{}.exch.b{} {}, {}, {}",
                                     sm60_ ? "" : pick({"", ".relaxed", ".acquire"}), space(t, l),
                                     src.bits, r, address(l), src.name));
      note_reg(t, r, fmt::format("b{}", src.bits));
      used_ |= kRmw;
    }
    used_ |= kDeps | kAccess;
    return true;
  }

  // A memory access under a predicate set from a loaded value.
  bool guard(int t) {
    const Reg src = pick(regs_[t]);
    if (src.bits == 16) return false;
    const std::string p = fresh(t, "p");
    code_[t].push_back(
        fmt::format("setp.{}.u{} {}, {}, {}", pick({"eq", "ne"}), src.bits, p, src.name, below(2)));
    const std::string g = fmt::format("@{}{} ", chance(50) ? "" : "!", p);
    const std::size_t before = code_[t].size();
    const int what = static_cast<int>(below(3));
    const bool ok = what == 0 ? load(t, g) : what == 1 ? store(t, g) : rmw(t, g);
    if (!ok) {
      code_[t].resize(before - 1);
      return false;
    }
    used_ |= kDeps;
    return true;
  }

  // A forward branch over one access.
  bool branch(int t) {
    const Reg src = pick(regs_[t]);
    const std::string label = fmt::format("L{}", labels_++);
    code_[t].push_back(
        fmt::format("{} {}, {}, {}", pick({"beq", "bne"}), src.name, below(2), label));
    const int what = static_cast<int>(below(3));
    const bool ok = what == 0 ? load(t, "") : what == 1 ? store(t, "") : rmw(t, "");
    if (!ok) {
      code_[t].pop_back();
      return false;
    }
    code_[t].push_back(label + ":");
    used_ |= kDeps;
    return true;
  }

  bool vector(int t) {
    const Loc& v = locs_[find("v")];
    const std::string sp = pick({".global", ""});
    const std::string sc = scope();
    switch (below(4)) {
      case 0:
        code_[t].push_back(fmt::format("red{}.{}{}.v2.f32.add [{}], {{1.0, 2.0}}",
                                       pick({"", ".relaxed", ".release"}), sc, sp, v.name));
        break;
      case 1: {
        const std::string a = fresh(t, "%a"), b = fresh(t, "%b");
        code_[t].push_back(fmt::format("atom{}.{}{}.v2.f32.add {{{}, {}}}, [{}], {{1.0, 1.0}}",
                                       pick({"", ".relaxed", ".acquire", ".release", ".acq_rel"}),
                                       sc, sp, a, b, v.name));
        observed_.push_back(reg_label(t, a));
        break;
      }
      case 2: {
        const std::string a = fresh(t, "%a"), b = fresh(t, "%b");
        code_[t].push_back(fmt::format("ld{}{}.v2.f32 {{{}, {}}}, [{}]",
                                       pick({".weak", ".relaxed." + sc, ".acquire." + sc}), sp, a,
                                       b, v.name));
        observed_.push_back(reg_label(t, b));
        break;
      }
      default:
        code_[t].push_back(fmt::format("st{}{}.v2.f32 [{}], {{4.0, 8.0}}",
                                       pick({".weak", ".relaxed." + sc, ".release." + sc}), sp,
                                       v.name));
    }
    used_ |= kVector;
    return true;
  }

  // suld/sust through a surface alias or a surface, tld, ld.const.
  bool proxy_access(int t) {
    std::vector<std::pair<std::string, const Loc*>> surf, tex, con;
    for (const Loc& l : locs_) {
      if (!l.surface_alias.empty()) surf.emplace_back(l.surface_alias, &l);
      if (!l.texture_alias.empty()) tex.emplace_back(l.texture_alias, &l);
      if (!l.constant_alias.empty()) con.emplace_back(l.constant_alias, &l);
      if (l.kind == LocKind::Surface) surf.emplace_back(l.name, &l);
    }
    const int what = static_cast<int>(below(4));
    const std::string r = fresh(t, "r");
    if (what <= 1 && !surf.empty()) {
      const auto& [name, l] = pick(surf);
      const unsigned k = static_cast<unsigned>(below(l->elems));
      const std::string addr = k ? fmt::format("[{}+{}]", name, k * l->bits / 8) : "[" + name + "]";
      const std::string type = fmt::format("b{}", l->bits);
      if (what == 0) {
        code_[t].push_back(fmt::format(
            "suld{}.{} {}, {}",
            pick({".weak", "", ".relaxed." + scope(), ".acquire." + scope(), ".volatile"}), type, r,
            addr));
        note_reg(t, r, type);
      } else {
        code_[t].push_back(fmt::format(
            "sust{}.{} {}, {}",
            pick({".weak", "", ".relaxed." + scope(), ".release." + scope(), ".volatile"}), type,
            addr, 1 + below(3)));
      }
    } else if (what == 2 && !tex.empty()) {
      code_[t].push_back(
          fmt::format("tld{}.b32 {}, [{}]", pick({".weak", ""}), r, pick(tex).first));
      note_reg(t, r, "b32");
    } else if (what == 3 && !con.empty()) {
      const std::string c = pick(con).first;
      code_[t].push_back(chance(50) ? fmt::format("ld.const.b32 {}, [{}]", r, c)
                                    : fmt::format("cold.weak {}, {}", r, c));
      note_reg(t, r, "b32");
    } else {
      return false;
    }
    used_ |= kProxy;
    return true;
  }

  bool proxy_fence(int t) {
    code_[t].push_back(
        fmt::format("fence.proxy.{}", pick({"alias", "surface", "texture", "constant"})));
    used_ |= kProxy;
    return true;
  }

  bool sured(int t) {
    const Loc& s = locs_[find("sA")];
    const bool byte = chance(50);
    std::string op, ctype;
    if (s.bits == 32) {
      op = pick({"add", "min", "max", "and", "or"});
      if (!byte)
        ctype = "b32";
      else if (op == "and" || op == "or")
        ctype = "b32";
      else
        ctype = pick({"u32", "s32"});
    } else {
      op = byte ? pick({"add", "min", "max"}) : pick({"min", "max"});
      ctype = byte ? (op == "add" ? "u64" : pick({"u64", "s64"})) : "b64";
    }
    const unsigned w = s.width ? s.width : s.elems, h = s.width ? s.elems / s.width : 1;
    auto coord = [&](unsigned n) {
      const int r = static_cast<int>(below(100));
      const long long i = r < 85   ? static_cast<long long>(below(n))
                          : r < 93 ? static_cast<long long>(n)
                                   : -1LL;
      return byte ? i * static_cast<long long>(s.bits / 8) : i;
    };
    const long long x = coord(w);
    std::string at;
    if (s.width) {
      const long long y = static_cast<long long>(below(h)) - (chance(8) ? 2 : 0);
      at = fmt::format("{{{}, {}}}", x, y);
    } else {
      at = fmt::format("{{{}}}", x);
    }
    code_[t].push_back(
        fmt::format("sured.{}.{}.{}.{}.{} [{}, {}], {}", byte ? "b" : "p", op,
                    s.width ? "2d" : "1d", ctype, pick({"trap", "clamp", "zero"}), s.name, at,
                    op == "min" && chance(40) ? "-1" : std::to_string(1 + below(3))));
    used_ |= kSurface;
    return true;
  }

  // The source buffer in t's CTA, made at its first bulk reduction.
  const Loc& source(int t) {
    if (const Loc* s = source_of(t)) return *s;
    const Loc& m = locs_[find("m")];
    Loc src = make_loc(fmt::format("src{}", t), LocKind::Source, m.bits, m.elems);
    src.owner = t;
    for (int u = 0; u < static_cast<int>(places_.size()); ++u)
      if (same_cta(u, t)) src.reach.push_back(u);
    for (unsigned k = 0; k < src.elems; ++k) src.init.push_back(std::to_string(k + 1));
    locs_.push_back(src);
    return locs_.back();
  }

  bool bulk(int t) {
    if (places_[t].gpu > 1) return false;
    ++bulks_;
    const Loc* src = &source(t);
    const Loc& m = locs_[find("m")];
    std::string op;
    if (m.bits == 32)
      op = pick({"add.u32", "add.s32", "add.f32", "min.u32", "min.s32", "max.u32", "max.s32",
                 "inc.u32", "dec.u32", "and.b32", "or.b32", "xor.b32"});
    else
      op = pick(
          {"add.u64", "add.f64", "min.u64", "min.s64", "max.u64", "max.s64", "and.b64", "xor.b64"});
    if (chance(20))
      code_[t].push_back(
          pick({"fence.proxy.async", "fence.proxy.async.global", "fence.proxy.async.shared::cta",
                "fence.proxy.async.shared::cluster"}));
    code_[t].push_back(
        fmt::format("multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.{} [{}], [{}], {}",
                    op, m.name, src->name, chance(92) ? 16 : 0));
    if (chance(65)) {
      code_[t].push_back("cp.async.bulk.commit_group");
      if (chance(70))
        code_[t].push_back(
            fmt::format("cp.async.bulk.wait_group{} {}", pick({"", ".read"}), below(2)));
    }
    used_ |= kBulk;
    return true;
  }

  // --- the text ---------------------------------------------------------------
  std::string decl(const Loc& l) const {
    auto type = [&](unsigned bits) { return bits == 16 ? "u16" : bits == 64 ? "u64" : "u32"; };
    auto list = [&] {
      std::string s = "{";
      for (std::size_t i = 0; i < l.init.size(); ++i) s += (i ? ", " : "") + l.init[i];
      return s + "}";
    };
    switch (l.kind) {
      case LocKind::Global:
        return fmt::format("global {} {} = {};", type(l.bits), l.name, l.init[0]);
      case LocKind::Shared:
        return fmt::format("{} {} {} = {};", l.decl_cluster ? "shared::cluster" : "shared",
                           type(l.bits), l.name, l.init[0]);
      case LocKind::Vector: return fmt::format("global f32 {}[{}] = {};", l.name, l.elems, list());
      case LocKind::Surface: {
        const std::string ty = fmt::format("{}{}", l.signed_surface ? "s" : "u", l.bits);
        if (l.width)
          return fmt::format("surface {} {}[{}][{}] = {};", ty, l.name, l.width, l.elems / l.width,
                             list());
        return fmt::format("surface {} {}[{}] = {};", ty, l.name, l.elems, list());
      }
      case LocKind::Multimem:
        return fmt::format("multimem(0, 1) {} {}[{}] = {};", type(l.bits), l.name, l.elems, list());
      case LocKind::Source:
        return fmt::format("shared {} {}[{}] = {};", type(l.bits), l.name, l.elems, list());
    }
    return "";
  }

  std::vector<std::string> cells_of(const Loc& l) const {
    std::vector<std::string> out;
    if (l.kind == LocKind::Multimem) {
      for (int g = 0; g < 2; ++g)
        for (unsigned k = 0; k < l.elems; ++k)
          out.push_back(fmt::format("{}_gpu{}[{}]", l.name, g, k));
    } else if (l.elems > 1) {
      for (unsigned k = 0; k < l.elems; ++k) out.push_back(fmt::format("{}[{}]", l.name, k));
    } else {
      out.push_back(l.name);
    }
    return out;
  }

  std::string render(const std::string& name) {
    std::string s = fmt::format("PTX {}\n", name);
    if (sm60_) s += "Target=sm_60\n";
    s += "{\n";
    for (const Loc& l : locs_) {
      s += decl(l) + "\n";
      for (const auto& [a, proxy] :
           {std::pair{&l.generic_alias, "generic"}, std::pair{&l.surface_alias, "surface"},
            std::pair{&l.texture_alias, "texture"}, std::pair{&l.constant_alias, "constant"}})
        if (!a->empty()) s += fmt::format("{} @ {} aliases {};\n", *a, proxy, l.name);
    }
    for (const std::string& r : reg_init_) s += r + "\n";
    s += "}\n";
    for (std::size_t t = 0; t < places_.size(); ++t) {
      const Place& p = places_[t];
      s += t ? " | " : " ";
      s += p.cluster >= 0 ? fmt::format("P{}@cta {},cluster {},gpu {}", t, p.cta, p.cluster, p.gpu)
                          : fmt::format("P{}@cta {},gpu {}", t, p.cta, p.gpu);
    }
    s += " ;\n";
    std::size_t rows = 0;
    for (const auto& c : code_) rows = std::max(rows, c.size());
    for (std::size_t i = 0; i < rows; ++i) {
      for (std::size_t t = 0; t < code_.size(); ++t)
        s += (t ? " | " : " ") + (i < code_[t].size() ? code_[t][i] : std::string());
      s += " ;\n";
    }
    std::vector<std::string> names = observed_;
    for (const Loc& l : locs_)
      if (l.kind != LocKind::Source || chance(30))
        for (const std::string& c : cells_of(l)) names.push_back(c);
    const std::string what = pick(names);
    s += fmt::format("{} ({} == {})\n", pick({"exists", "exists", "~exists", "forall"}), what,
                     below(3));
    return s;
  }
};

}  // namespace

std::vector<std::string_view> feature_names() {
  return std::vector<std::string_view>(std::begin(kNames), std::end(kNames));
}

std::optional<std::uint32_t> parse_features(std::string_view list) {
  std::uint32_t out = 0;
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    std::string_view w = list.substr(at, comma - at);
    at = comma + 1;
    if (w.empty()) {
      if (comma == list.size()) break;
      continue;
    }
    const bool remove = w.front() == '-';
    if (remove || w.front() == '+') w.remove_prefix(1);
    std::uint32_t bits = 0;
    if (w == "generic")
      bits = kGeneric;
    else if (w == "proxies")
      bits = kProxyFeatures;
    else if (w == "all")
      bits = kAllFeatures;
    else if (w == "none")
      bits = 0;
    else {
      for (std::size_t i = 0; i < kFeatureCount; ++i)
        if (w == kNames[i]) bits = 1u << i;
      if (!bits) return std::nullopt;
    }
    out = remove ? out & ~bits : out | bits;
  }
  return out;
}

std::string render_features(std::uint32_t features) {
  std::string s;
  for (std::size_t i = 0; i < kFeatureCount; ++i)
    if (features & (1u << i)) s += (s.empty() ? "" : ",") + std::string(kNames[i]);
  return s.empty() ? "none" : s;
}

std::string test_name(std::uint64_t seed, std::uint64_t index) {
  return fmt::format("diff-s{}-{}", seed, index);
}

Generated generate(std::uint64_t seed, std::uint64_t index, const GenOptions& opts) {
  Generated g;
  g.name = test_name(seed, index);
  for (int attempt = 0; attempt < 100; ++attempt) {
    Draft d(splitmix(splitmix(seed) ^ splitmix(index * 131 + static_cast<std::uint64_t>(attempt))),
            opts);
    std::string text = d.make(g.name);
    g.attempts = attempt + 1;
    try {
      const LitmusTest t = parse_litmus(text, g.name + ".litmus");
      const Expansion ex = expand(t, ExpandOptions{});
      check_condition_literals(t, observables_of(t, ex, true));
      g.text = std::move(text);
      g.used = d.used();
      return g;
    } catch (const InputError& e) {
      g.rejected.push_back(e.what());
    }
  }
  throw std::runtime_error(
      fmt::format("{}: no valid draft in 100 attempts; the last: {}", g.name, g.rejected.back()));
}

// ---------------------------------------------------------------------------
// The driver.

std::string_view to_string(Answer::Status s) {
  switch (s) {
    case Answer::Status::Ok: return "ok";
    case Answer::Status::Refused: return "refused";
    case Answer::Status::GaveUp: return "gave up";
    case Answer::Status::Error: return "error";
  }
  return "?";
}

namespace {

enum class Which : std::uint8_t { Z3, Enum, Op };
constexpr std::string_view kEngine[] = {"z3", "enum", "op"};

Answer answer_of(const TestResult& r) {
  Answer a;
  a.seconds = r.seconds;
  a.incomplete = r.incomplete;
  for (const Observable& o : r.observables) a.labels.push_back(o.label);
  for (std::size_t i = 0; i < r.outcomes.size(); ++i) {
    std::string line;
    if (const auto st = r.status_text(i)) line = "[" + *st + "] ";
    for (std::size_t k = 0; k < r.observables.size(); ++k)
      line += fmt::format("{}{}={}", k ? " " : "", r.observables[k].label, r.render_value(i, k));
    a.outcomes.insert(line);
  }
  if (r.error) {
    a.status = Answer::Status::Error;
    a.message = *r.error;
  }
  return a;
}

// `thin_air`: with the model's No-Thin-Air check left out (and
// DriverOptions::thin_air_outcomes outcomes at most).
Answer run_one(Which w, const LitmusTest& t, const DriverOptions& d, bool thin_air = false) {
  EngineOptions eo;
  eo.observe_all = d.observe_all;
  if (thin_air) {
    eo.disabled_checks = {"No-Thin-Air"};
    eo.max_outcomes = d.thin_air_outcomes;
  }
  eo.limits.seconds = d.engine_seconds;
  eo.enum_limit = d.enum_limit;
  eo.engine = w == Which::Z3     ? EngineKind::Z3
              : w == Which::Enum ? EngineKind::Enum
                                 : EngineKind::Op;
  const auto t0 = std::chrono::steady_clock::now();
  Answer a;
  try {
    a = answer_of(with_budget(eo, [&](const EngineOptions& o) {
      return w == Which::Z3 ? run_z3(t, o) : w == Which::Enum ? run_enum(t, o) : run_op(t, o);
    }));
  } catch (const BudgetExceeded& e) {
    a.status = Answer::Status::GaveUp;
    a.message = e.what();
  } catch (const InputError& e) {
    const std::string m = e.what();
    if (w == Which::Op && m.find("the operational machine (--engine op)") != std::string::npos)
      a.status = Answer::Status::Refused;
    else if (m.find("gave up after") != std::string::npos ||
             m.find("outcomes: the observed values are not bounded") != std::string::npos ||
             (m.find("more than ") != std::string::npos && m.ends_with(" outcomes")) ||
             m.find("too large for --engine op") != std::string::npos)
      a.status = Answer::Status::GaveUp;
    else
      a.status = Answer::Status::Error;
    a.message = m;
  } catch (const std::exception& e) {
    a.status = Answer::Status::Error;
    a.message = std::string("exception: ") + e.what();
  } catch (...) {
    a.status = Answer::Status::Error;
    a.message = "unknown exception";
  }
  a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return a;
}

// The built-in model with `axiom` added (the triage's variants).
std::shared_ptr<const cat::Model> variant(const std::string& name, const std::string& axiom) {
  const std::string text = std::string(cat::builtin_ptx_model()) + "\n" + axiom + "\n";
  return std::make_shared<const cat::Model>(
      cat::parse_cat(text, name + ".cat", cat::ptx_primitives()));
}

// Why the machine never reaches an outcome: the documented shape whose
// variant model (the built-in model plus an axiom that rules the shape out)
// forbids it. Each variant runs once per test, when first asked.
//
// docs/model.md "Where it is stronger than the model" documents one shape
// today: a thread that has seen two unordered racing writes reads only the
// later (the machine's one newest message per cell): ruled out by a total
// coherence order per location. (Total coherence also fixes final values,
// which the machine leaves partial; a miss that only a final value
// explains would be sorted here too.) The RMW whose write is
// coherence-before the write it read (`acyclic (rf ; rmw) | co`) was the
// other documented shape until the machine placed RMW writes after the
// thread's view; it is reached now, so it is no excuse.
class Triage {
 public:
  Triage(const LitmusTest& t, const DriverOptions& d) : t_(t), d_(d) {}
  // "" when no variant forbids `o` (or one could not be run).
  std::string operator()(const std::string& o) {
    const auto& shapes = documented();
    if (answers_.empty()) answers_.resize(shapes.size());
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      if (!answers_[i]) {
        EngineOptions eo;
        eo.observe_all = d_.observe_all;
        eo.limits.seconds = d_.engine_seconds;
        eo.user_model = shapes[i].second;
        try {
          answers_[i] =
              answer_of(with_budget(eo, [&](const EngineOptions& e) { return run_z3(t_, e); }));
        } catch (const std::exception&) {
          answers_[i] = Answer{};  // could not say: explains nothing
          answers_[i]->status = Answer::Status::Error;
        }
      }
      if (answers_[i]->status == Answer::Status::Ok && !answers_[i]->outcomes.count(o))
        return shapes[i].first;
    }
    return "";
  }

 private:
  using Shapes = std::vector<std::pair<std::string, std::shared_ptr<const cat::Model>>>;
  static const Shapes& documented() {
    static const Shapes s = {
        {"a thread that has seen two unordered racing writes reads only the later",
         variant("total-co",
                 "empty (([W \\ IW] ; loc ; [W \\ IW]) \\ (co | co^-1 | id)) as Total-co\n")}};
    return s;
  }
  const LitmusTest& t_;
  const DriverOptions& d_;
  std::vector<std::optional<Answer>> answers_;
};

}  // namespace

// The features whose tests may hold an rf ∪ data cycle: a store of a loaded
// value, or an RMW (its write uses its own read).
constexpr std::uint32_t kValueCycles = kDeps | kRmw | kVector | kSurface | kBulk;

// z3 against enum under the model without No-Thin-Air (issue 43: the
// enumerator dropped every rf ∪ data cycle, so its outcomes missed what z3's
// free values allow). Both must give the same outcomes, or both give up.
void compare_without_thin_air(Verdict& v, const LitmusTest& t, const DriverOptions& opts) {
  if (!opts.without_thin_air || !(v.test.used & kValueCycles)) return;
  // The enumerator first: where it gives up at its choice limit nothing can
  // be compared; where it finds more outcomes than the cap (an unbounded
  // cycle) z3 must too, which it shows within a second (64 solver checks)
  // or it would take up to the timeout: then it is not waited for.
  v.en_nta = run_one(Which::Enum, t, opts, true);
  const bool many = v.en_nta->status == Answer::Status::GaveUp &&
                    v.en_nta->message.find("more than ") != std::string::npos;
  if (v.en_nta->status == Answer::Status::GaveUp && !many) {
    v.z3_nta = Answer{};
    v.z3_nta->status = Answer::Status::GaveUp;
    v.z3_nta->message = "not run: enum gave up";
    return;
  }
  DriverOptions z = opts;
  if (many) z.engine_seconds = std::min(opts.engine_seconds, 1.0);
  v.z3_nta = run_one(Which::Z3, t, z, true);
  if (many && v.z3_nta->status == Answer::Status::Ok) {
    v.disagreements.push_back(
        fmt::format("without No-Thin-Air: enum finds more than {} outcomes, z3 {}",
                    opts.thin_air_outcomes, v.z3_nta->outcomes.size()));
    v.classes |= kZ3Enum;
    return;
  }
  const Answer* as[] = {&*v.z3_nta, &*v.en_nta};
  for (int i = 0; i < 2; ++i)
    if (as[i]->status == Answer::Status::Error) {
      v.errors.push_back(
          fmt::format("{} failed without No-Thin-Air: {}", kEngine[i], as[i]->message));
      v.classes |= kEngineError;
    }
  if (v.z3_nta->status != Answer::Status::Ok || v.en_nta->status != Answer::Status::Ok) return;
  std::set<std::string> all = v.z3_nta->outcomes;
  all.insert(v.en_nta->outcomes.begin(), v.en_nta->outcomes.end());
  for (const std::string& o : all) {
    const bool z = v.z3_nta->outcomes.count(o) > 0, e = v.en_nta->outcomes.count(o) > 0;
    if (z == e) continue;
    v.disagreements.push_back(fmt::format("without No-Thin-Air: z3 {}, enum {}: {}",
                                          z ? "allows" : "forbids", e ? "allows" : "forbids", o));
    v.classes |= kZ3Enum;
  }
}

Verdict check(const Generated& test, const DriverOptions& opts) {
  Verdict v;
  v.test = test;
  LitmusTest t;
  try {
    t = parse_litmus(test.text, test.name + ".litmus");
  } catch (const InputError& e) {
    v.errors.push_back(fmt::format("the generated test does not parse: {}", e.what()));
    return v;
  }
  v.z3 = run_one(Which::Z3, t, opts);
  v.en = run_one(Which::Enum, t, opts);
  v.op = run_one(Which::Op, t, opts);
  compare_without_thin_air(v, t, opts);
  const Answer* as[] = {&v.z3, &v.en, &v.op};
  for (int i = 0; i < 3; ++i)
    if (as[i]->status == Answer::Status::Error) {
      v.errors.push_back(fmt::format("{} failed: {}", kEngine[i], as[i]->message));
      v.classes |= kEngineError;
    }
  std::vector<int> ok;
  for (int i = 0; i < 3; ++i)
    if (as[i]->status == Answer::Status::Ok) ok.push_back(i);
  if (ok.size() < 2) return v;
  for (std::size_t k = 1; k < ok.size(); ++k)
    if (as[ok[k]]->labels != as[ok[0]]->labels) {
      v.disagreements.push_back(fmt::format("{} and {} observe different registers and locations",
                                            kEngine[ok[0]], kEngine[ok[k]]));
      return v;
    }
  std::set<std::string> all;
  for (int i : ok) all.insert(as[i]->outcomes.begin(), as[i]->outcomes.end());
  Triage triage(t, opts);
  for (const std::string& o : all) {
    std::string who;
    bool differ = false;
    for (int i : ok) {
      const bool has = as[i]->outcomes.count(o) > 0;
      differ |= has != (as[ok[0]]->outcomes.count(o) > 0);
      who +=
          fmt::format("{}{} {}", who.empty() ? "" : ", ", kEngine[i],
                      i == 2 ? (has ? "reaches" : "does not reach") : (has ? "allows" : "forbids"));
    }
    if (!differ) continue;
    v.disagreements.push_back(fmt::format("{}: {}", who, o));
    const bool z3 = v.z3.status == Answer::Status::Ok && v.z3.outcomes.count(o);
    const bool en = v.en.status == Answer::Status::Ok && v.en.outcomes.count(o);
    const bool op = v.op.status == Answer::Status::Ok && v.op.outcomes.count(o);
    if (v.z3.status == Answer::Status::Ok && v.en.status == Answer::Status::Ok && z3 != en)
      v.classes |= kZ3Enum;
    const bool z3_forbids = v.z3.status == Answer::Status::Ok && !z3;
    const bool en_forbids = v.en.status == Answer::Status::Ok && !en;
    if (v.op.status == Answer::Status::Ok) {
      if (op && (z3_forbids || en_forbids)) v.classes |= kOpForbidden;
      if (!op && (z3 || en)) {
        if (const std::string why = opts.triage ? triage(o) : ""; !why.empty()) {
          v.classes |= kOpMissedDocumented;
          v.disagreements.back() += " [documented: " + why + "]";
        } else {
          v.classes |= kOpMissed;
        }
      }
    }
  }
  // What the documented shapes explain last, so that a long list shows the rest first.
  std::stable_partition(v.disagreements.begin(), v.disagreements.end(), [](const std::string& d) {
    return d.find("[documented: ") == std::string::npos;
  });
  if (v.z3.status == Answer::Status::Ok && v.en.status == Answer::Status::Ok &&
      (v.z3.incomplete.bound_cut != v.en.incomplete.bound_cut ||
       v.z3.incomplete.barrier_deadlock != v.en.incomplete.barrier_deadlock)) {
    v.classes |= kZ3Enum;
    v.disagreements.push_back(fmt::format(
        "incomplete paths: z3 {} cut by the unroll bound, {} barrier deadlocks; enum {}, {}",
        v.z3.incomplete.bound_cut, v.z3.incomplete.barrier_deadlock, v.en.incomplete.bound_cut,
        v.en.incomplete.barrier_deadlock));
  }
  return v;
}

constexpr std::size_t kShownDisagreements = 16;

std::string render_verdict(const Verdict& v) {
  std::string s =
      fmt::format("{} ({}; features {}, {} draft{}):\n", v.test.name, render_classes(v.classes),
                  render_features(v.test.used), v.test.attempts, v.test.attempts == 1 ? "" : "s");
  for (std::size_t i = 0; i < v.disagreements.size() && i < kShownDisagreements; ++i)
    s += "  DISAGREE " + v.disagreements[i] + "\n";
  if (v.disagreements.size() > kShownDisagreements)
    s += fmt::format("  ... and {} more disagreements\n",
                     v.disagreements.size() - kShownDisagreements);
  for (const std::string& e : v.errors) s += "  ERROR " + e + "\n";
  const auto answer = [&s](std::string_view who, const Answer& a) {
    s += fmt::format("  {}: {}", who, to_string(a.status));
    if (a.status == Answer::Status::Ok)
      s += fmt::format(", {} outcome{} ({:.2f} s)", a.outcomes.size(),
                       a.outcomes.size() == 1 ? "" : "s", a.seconds);
    else
      s += ": " + a.message;
    s += "\n";
  };
  const Answer* as[] = {&v.z3, &v.en, &v.op};
  for (int i = 0; i < 3; ++i) answer(kEngine[i], *as[i]);
  if (v.z3_nta) answer("z3 without No-Thin-Air", *v.z3_nta);
  if (v.en_nta) answer("enum without No-Thin-Air", *v.en_nta);
  s += "  ---\n";
  std::size_t at = 0;
  while (at < v.test.text.size()) {
    const std::size_t nl = std::min(v.test.text.find('\n', at), v.test.text.size());
    s += "  " + v.test.text.substr(at, nl - at) + "\n";
    at = nl + 1;
  }
  return s;
}

std::string finding_file(const Verdict& v) {
  const std::size_t nl = v.test.text.find('\n');
  std::string report = render_verdict(v);
  // The report holds the test itself after "---"; a comment keeps the rest.
  report = report.substr(0, report.find("  ---\n"));
  std::string comment = "(* differential tester (tests/differential.cpp): the engines disagree\n";
  std::size_t at = 0;
  while (at < report.size()) {
    const std::size_t e = std::min(report.find('\n', at), report.size());
    std::string line = report.substr(at, e - at);
    // "*)" would end the comment early.
    for (std::size_t p; (p = line.find("*)")) != std::string::npos;) line.replace(p, 2, "* )");
    comment += line + "\n";
    at = e + 1;
  }
  comment += "*)\n";
  return v.test.text.substr(0, nl + 1) + comment + v.test.text.substr(nl + 1);
}

constexpr std::pair<Class, std::string_view> kClassNames[] = {
    {kZ3Enum, "z3-enum"},
    {kOpForbidden, "op-forbidden"},
    {kOpMissed, "op-missed"},
    {kEngineError, "engine-error"},
    {kOpMissedDocumented, "op-missed-documented"}};

std::optional<std::uint32_t> parse_classes(std::string_view list) {
  std::uint32_t out = 0;
  while (!list.empty()) {
    const std::size_t comma = std::min(list.find(','), list.size());
    const std::string_view w = list.substr(0, comma);
    list.remove_prefix(std::min(comma + 1, list.size()));
    if (w.empty()) continue;
    std::uint32_t bit = 0;
    for (const auto& [c, name] : kClassNames)
      if (w == name) bit = c;
    if (!bit) return std::nullopt;
    out |= bit;
  }
  return out;
}

std::string render_classes(std::uint32_t classes) {
  std::string s;
  for (const auto& [c, name] : kClassNames)
    if (classes & c) s += (s.empty() ? "" : ",") + std::string(name);
  return s.empty() ? "agree" : s;
}

// ---------------------------------------------------------------------------
// The minimizer: the test as header, init lines, per-thread cells and
// condition, taken apart and put back together.

namespace {

struct Parts {
  std::vector<std::string> head;  // the header lines up to and with "{"
  std::vector<std::string> init;  // the init block's lines
  std::vector<std::string> places;
  std::vector<std::vector<std::string>> cells;  // per thread, the non-empty cells
  std::string condition;
};

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> split_row(std::string line) {
  line = trim(line);
  if (!line.empty() && line.back() == ';') line.pop_back();
  std::vector<std::string> out;
  std::size_t at = 0;
  for (;;) {
    const std::size_t bar = line.find('|', at);
    out.push_back(trim(line.substr(at, bar == std::string::npos ? std::string::npos : bar - at)));
    if (bar == std::string::npos) return out;
    at = bar + 1;
  }
}

std::optional<Parts> take_apart(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  Parts p;
  std::size_t i = 0;
  while (i < lines.size() && !trim(lines[i]).starts_with("{")) p.head.push_back(lines[i++]);
  if (i == lines.size()) return std::nullopt;
  if (const std::string l = trim(lines[i]); l != "{") {  // "{ x = 0; y = 0; }" on one line
    if (!l.ends_with("}")) return std::nullopt;
    p.head.push_back("{");
    const std::string inner = trim(std::string_view(l).substr(1, l.size() - 2));
    if (!inner.empty()) p.init.push_back(inner);
    ++i;
  } else {
    p.head.push_back(lines[i++]);
    while (i < lines.size() && lines[i] != "}") p.init.push_back(lines[i++]);
    ++i;
  }
  if (i >= lines.size()) return std::nullopt;
  p.places = split_row(lines[i++]);
  p.cells.assign(p.places.size(), {});
  for (; i < lines.size(); ++i) {
    const std::string l = trim(lines[i]);
    if (l.starts_with("exists") || l.starts_with("~exists") || l.starts_with("forall")) {
      p.condition = l;
      return p;
    }
    const std::vector<std::string> row = split_row(lines[i]);
    if (row.size() != p.places.size()) return std::nullopt;
    for (std::size_t t = 0; t < row.size(); ++t)
      if (!row[t].empty()) p.cells[t].push_back(row[t]);
  }
  return std::nullopt;
}

// "P<from>" renamed "P<to>" where it names a thread: "P3:r0", "P3@cta".
std::string rename_thread(std::string s, std::size_t from, std::size_t to) {
  const std::string a = fmt::format("P{}", from), b = fmt::format("P{}", to);
  for (std::size_t p = 0; (p = s.find(a, p)) != std::string::npos;) {
    const std::size_t e = p + a.size();
    const bool word_start = p == 0 || !(std::isalnum(static_cast<unsigned char>(s[p - 1])) ||
                                        s[p - 1] == '_' || s[p - 1] == '%');
    if (word_start && e < s.size() && (s[e] == ':' || s[e] == '@')) {
      s.replace(p, a.size(), b);
      p += b.size();
    } else {
      p = e;
    }
  }
  return s;
}

// A condition over the first declared location, for when the old one names
// what is gone.
std::string fallback_condition(const Parts& p) {
  for (const std::string& l : p.init) {
    std::vector<std::string> w;
    for (std::size_t at = 0; at < l.size();) {
      const std::size_t sp = std::min(l.find(' ', at), l.size());
      if (sp > at) w.push_back(l.substr(at, sp - at));
      at = sp + 1;
    }
    if (w.size() < 3 || w[0].starts_with("P") || w[1] == "@") continue;  // registers, aliases
    const bool multimem = w[0].starts_with("multimem(");  // "multimem(0," "1)" TYPE NAME
    std::string name = multimem ? (w.size() > 3 ? w[3] : "") : w[2];
    const std::size_t br = name.find('[');
    if (multimem)
      name = name.substr(0, br) + "_gpu0[0]";
    else if (br != std::string::npos)
      name = name.substr(0, br) + "[0]";
    if (!name.empty()) return fmt::format("exists ({} == 0)", name);
  }
  return "";
}

std::string put_together(const Parts& p) {
  std::string s;
  for (const std::string& l : p.head) s += l + "\n";
  for (const std::string& l : p.init) s += l + "\n";
  s += "}\n";
  for (std::size_t t = 0; t < p.places.size(); ++t) s += (t ? " | " : " ") + p.places[t];
  s += " ;\n";
  std::size_t rows = 0;
  for (const auto& c : p.cells) rows = std::max(rows, c.size());
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t t = 0; t < p.cells.size(); ++t)
      s += (t ? " | " : " ") + (i < p.cells[t].size() ? p.cells[t][i] : std::string());
    s += " ;\n";
  }
  return s + p.condition + "\n";
}

// Every one-step reduction of `p`: a thread, a cell, an init line less.
std::vector<Parts> reductions(const Parts& p) {
  std::vector<Parts> out;
  const std::size_t n = p.places.size();
  for (std::size_t k = 0; n > 1 && k < n; ++k) {
    Parts q = p;
    q.places.erase(q.places.begin() + static_cast<std::ptrdiff_t>(k));
    q.cells.erase(q.cells.begin() + static_cast<std::ptrdiff_t>(k));
    const std::string gone = fmt::format("P{}:", k);
    std::erase_if(q.init, [&](const std::string& l) { return trim(l).starts_with(gone); });
    if (q.condition.find(gone) != std::string::npos) q.condition = fallback_condition(q);
    for (std::size_t j = k + 1; j < n; ++j) {
      q.places[j - 1] = rename_thread(q.places[j - 1], j, j - 1);
      for (std::string& l : q.init) l = rename_thread(l, j, j - 1);
      q.condition = rename_thread(q.condition, j, j - 1);
    }
    out.push_back(std::move(q));
  }
  for (std::size_t t = 0; t < n; ++t)
    for (std::size_t i = 0; i < p.cells[t].size(); ++i) {
      Parts q = p;
      q.cells[t].erase(q.cells[t].begin() + static_cast<std::ptrdiff_t>(i));
      if (q.cells[t].empty()) continue;  // taking the thread away is tried above
      out.push_back(std::move(q));
    }
  for (std::size_t i = 0; i < p.init.size(); ++i) {
    Parts q = p;
    q.init.erase(q.init.begin() + static_cast<std::ptrdiff_t>(i));
    out.push_back(q);
    const std::string c = fallback_condition(q);
    if (!c.empty() && c != q.condition) {
      q.condition = c;
      out.push_back(std::move(q));
    }
  }
  return out;
}

bool valid(const std::string& text, const std::string& name) {
  try {
    const LitmusTest t = parse_litmus(text, name + ".litmus");
    const Expansion ex = expand(t, ExpandOptions{});
    check_condition_literals(t, observables_of(t, ex, true));
    return true;
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace

Verdict minimize(const Verdict& v, const DriverOptions& opts, int max_checks) {
  Verdict best = v;
  // The reduction keeps the most telling class of the test.
  std::uint32_t want = 0;
  for (const Class c : {kOpForbidden, kZ3Enum, kEngineError, kOpMissed, kOpMissedDocumented})
    if (!want && (v.classes & c)) want = c;
  if (!want) return best;
  std::optional<Parts> p = take_apart(v.test.text);
  if (!p) return best;
  const std::string name = v.test.name + ".min";
  if (!p->head.empty() && p->head[0].starts_with("PTX ")) p->head[0] = "PTX " + name;
  int checks = 0;
  for (bool progress = true; progress && checks < max_checks;) {
    progress = false;
    for (Parts& q : reductions(*p)) {
      if (checks >= max_checks) break;
      Generated g = v.test;
      g.name = name;
      g.text = put_together(q);
      if (!valid(g.text, name)) continue;
      ++checks;
      Verdict r = check(g, opts);
      if (!(r.classes & want)) continue;
      best = std::move(r);
      *p = std::move(q);
      progress = true;
      break;
    }
  }
  if (best.test.name != name) {  // nothing taken away: still renamed
    best.test.name = name;
    best.test.text = put_together(*p);
  }
  return best;
}

// ---------------------------------------------------------------------------
// Runs.

RunSummary run(const RunOptions& opts, std::ostream& out) {
  RunSummary s;
  std::mutex mu;
  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> stop{false};
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  if (!opts.findings_dir.empty()) std::filesystem::create_directories(opts.findings_dir);
  auto worker = [&] {
    for (;;) {
      if (stop) return;
      const std::uint64_t i = next++;
      if (i >= opts.count) return;
      if (opts.max_seconds > 0 && elapsed() > opts.max_seconds) {
        stop = true;
        return;
      }
      const std::uint64_t index = opts.first + i;
      Verdict v;
      try {
        v = check(generate(opts.seed, index, opts.gen), opts.driver);
      } catch (const std::exception& e) {
        v.test.name = test_name(opts.seed, index);
        v.errors.push_back(e.what());
      }
      std::optional<Verdict> small;
      // Outcomes a documented shape explains are not worth the time.
      if (v.failed() && opts.minimize && (v.classes & ~kOpMissedDocumented))
        small = minimize(v, opts.driver);
      const std::lock_guard<std::mutex> lock(mu);
      ++s.tests;
      s.attempts += static_cast<std::uint64_t>(v.test.attempts);
      s.outcomes += v.z3.outcomes.size();
      s.z3_seconds += v.z3.seconds;
      s.enum_seconds += v.en.seconds;
      if (v.z3_nta) s.thin_air_seconds += v.z3_nta->seconds + v.en_nta->seconds;
      s.op_seconds += v.op.seconds;
      if (v.op.status == Answer::Status::Refused) ++s.op_refused;
      if (v.z3.status == Answer::Status::GaveUp || v.en.status == Answer::Status::GaveUp ||
          v.op.status == Answer::Status::GaveUp)
        ++s.gave_up;
      s.disagreements += v.disagreements.size();
      s.errors += v.errors.size();
      if (opts.fail_on_refusal && v.op.status == Answer::Status::Refused)
        v.errors.push_back("op refused (--fail-on-refusal): " + v.op.message);
      if (v.failed()) {
        ++s.failed;
        s.failed_names.push_back(v.test.name);
        const bool tolerated = v.errors.empty() && (v.classes & ~opts.tolerate) == 0;
        s.tolerated += tolerated;
        out << (tolerated ? "TOLERATED " : "FAIL ") << render_verdict(v) << std::flush;
        if (small) out << "MINIMIZED " << render_verdict(*small) << std::flush;
        if (!opts.findings_dir.empty()) {
          const std::filesystem::path dir(opts.findings_dir);
          std::ofstream(dir / (v.test.name + ".litmus")) << finding_file(v);
          if (small) std::ofstream(dir / (small->test.name + ".litmus")) << finding_file(*small);
        }
        ++s.by_class[v.classes];
      } else if (opts.verbose) {
        out << fmt::format(
                   "ok {} ({}; z3 {} outcomes; z3 {:.2f} s, enum {:.2f} s, op {:.2f} s{}{}{})\n",
                   v.test.name, render_features(v.test.used), v.z3.outcomes.size(), v.z3.seconds,
                   v.en.seconds, v.op.seconds,
                   v.z3_nta
                       ? fmt::format(", without No-Thin-Air z3 {:.2f} s ({}), enum {:.2f} s ({})",
                                     v.z3_nta->seconds, to_string(v.z3_nta->status),
                                     v.en_nta->seconds, to_string(v.en_nta->status))
                       : "",
                   v.op.status == Answer::Status::Refused ? ", op refused" : "",
                   v.en.status == Answer::Status::GaveUp || v.z3.status == Answer::Status::GaveUp ||
                           v.op.status == Answer::Status::GaveUp
                       ? ", an engine gave up"
                       : "")
            << std::flush;
      }
      if (s.tests % 1000 == 0)
        out << fmt::format("... {} tests, {} failed, {:.0f} s\n", s.tests, s.failed, elapsed())
            << std::flush;
    }
  };
  const unsigned jobs = std::max(1u, opts.jobs);
  std::vector<std::thread> pool;
  for (unsigned j = 1; j < jobs; ++j) pool.emplace_back(worker);
  worker();
  for (std::thread& th : pool) th.join();
  s.seconds = elapsed();
  std::sort(s.failed_names.begin(), s.failed_names.end());
  return s;
}

std::string render_summary(const RunOptions& opts, const RunSummary& s) {
  std::string r = fmt::format(
      "differential: seed {}, tests {}..{} ({} run), features {}\n"
      "  {} failed{} ({} disagreements, {} errors), op refused {}, gave up {}\n"
      "  {} drafts for {} tests, {} outcomes (z3)\n"
      "  {:.1f} s wall, {} job{}; engine time z3 {:.1f} s, enum {:.1f} s, op {:.1f} s, "
      "without No-Thin-Air {:.1f} s\n",
      opts.seed, opts.first, opts.first + opts.count - 1, s.tests,
      render_features(opts.gen.features), s.failed,
      s.tolerated ? fmt::format(" ({} tolerated: {})", s.tolerated, render_classes(opts.tolerate))
                  : "",
      s.disagreements, s.errors, s.op_refused, s.gave_up, s.attempts, s.tests, s.outcomes,
      s.seconds, opts.jobs, opts.jobs == 1 ? "" : "s", s.z3_seconds, s.enum_seconds, s.op_seconds,
      s.thin_air_seconds);
  for (const auto& [classes, n] : s.by_class)
    r += fmt::format("  {} failed test{}: {}\n", n, n == 1 ? "" : "s",
                     classes ? render_classes(classes) : "an error (generation, refusal)");
  if (!s.failed_names.empty()) {
    r += "  failed:";
    for (std::size_t i = 0; i < s.failed_names.size() && i < 50; ++i) r += " " + s.failed_names[i];
    if (s.failed_names.size() > 50) r += fmt::format(" ... ({} more)", s.failed_names.size() - 50);
    r += "\n";
  }
  return r;
}

}  // namespace redscope::differential
