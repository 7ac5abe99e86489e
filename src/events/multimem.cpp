// Multimem ranges (see multimem.hpp).
#include "events/multimem.hpp"
#include "events/input_error.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace redscope::detail {
namespace {

// The test's declared locations by name: looked up per access and per
// replica, so indexed once (a scan each was quadratic: issue 28).
using Declared = std::map<std::string, const InitEntry*>;

Declared declarations(const LitmusTest& t) {
  Declared d;
  for (const InitEntry& e : t.init)
    if (!e.thread) d.emplace(e.name, &e);
  return d;
}

const InitEntry* declared(const Declared& d, const std::string& name) {
  const auto it = d.find(name);
  return it == d.end() ? nullptr : it->second;
}

std::size_t bytes_of(const InitEntry& e) {
  return e.count.value_or(1) * (e.type ? width_of(*e.type) / 8 : 4);
}

// The checks of one bulk reduction's operands, and its replicas.
void resolve_bulk(const LitmusTest& t, const Declared& decls,
                  const std::map<std::string, InitEntry>& ranges, Instruction& in) {
  BulkSpec& b = *in.bulk;
  const auto r = ranges.find(b.dst.name);
  if (r == ranges.end())
    input_error(t, b.dst.loc,
                fmt::format("'{}' is not a multimem range (declare multimem(GPUS) TYPE {}[N])",
                            b.dst.name, b.dst.name));
  const InitEntry* src = declared(decls, b.src.name);
  if (!src || src->space != Space::SharedCta || !src->type)
    input_error(t, b.src.loc,
                fmt::format("the source '{}' is a declared .shared::cta buffer (shared TYPE "
                            "{}[N])",
                            b.src.name, b.src.name));
  const unsigned w = width_of(in.type) / 8;
  for (const auto& [op, e] : {std::pair{&b.dst, &r->second}, std::pair{&b.src, src}}) {
    if (width_of(*e->type) / 8 != w)
      input_error(t, op->loc,
                  fmt::format("'{}' holds {}-byte elements, the reduction's .{} {}: a "
                              "mixed-size access, which redscope rejects",
                              e->name, width_of(*e->type) / 8, to_string(in.type), w));
    if (op->offset % 16 != 0)
      input_error(t, op->loc,
                  fmt::format("[{}+{}] is not 16-byte aligned (the seed: dstMem and srcMem "
                              "must be)",
                              op->name, op->offset));
    if (static_cast<std::size_t>(op->offset + b.size) > bytes_of(*e))
      input_error(t, op->loc,
                  fmt::format("[{}+{}, +{}) overflows '{}' ({} bytes)", op->name, op->offset,
                              b.size, e->name, bytes_of(*e)));
  }
  for (int g : r->second.replicas) b.replicas.push_back(replica_name(b.dst.name, g));
  // The layout checks the source like any access: shared memory is its CTA's.
  in.addr = b.src;
}

}  // namespace

void resolve_multimem(LitmusTest& t) {
  const Declared decls = declarations(t);
  std::map<std::string, InitEntry> ranges;
  for (const InitEntry& e : t.init)
    if (!e.thread && !e.replicas.empty()) ranges[e.name] = e;
  if (ranges.empty()) {  // a bulk reduction still needs a range: say so
    for (ThreadCode& tc : t.threads)
      for (Instruction& in : tc.code)
        if (in.kind == InstrKind::BulkReduce) resolve_bulk(t, decls, ranges, in);
    return;
  }
  std::vector<InitEntry> init;
  for (const InitEntry& e : t.init) {
    if (e.thread || e.replicas.empty()) {
      init.push_back(e);
      continue;
    }
    for (int g : e.replicas) {
      InitEntry r = e;
      r.replicas.clear();
      r.name = replica_name(e.name, g);
      if (declared(decls, r.name))
        input_error(t, e.loc,
                    fmt::format("'{}' names {}'s replica on GPU {}; it is declared "
                                "too",
                                r.name, e.name, g));
      init.push_back(std::move(r));
    }
  }
  t.init = std::move(init);
  const Declared replicas = declarations(t);  // the new init block's entries
  for (ThreadCode& tc : t.threads)
    for (Instruction& in : tc.code) {
      if (in.kind == InstrKind::BulkReduce) {
        resolve_bulk(t, replicas, ranges, in);
        continue;
      }
      if (!in.addr || in.addr->kind != Operand::Kind::Loc) continue;
      const auto r = ranges.find(in.addr->name);
      if (r == ranges.end()) continue;
      const std::vector<int>& gpus = r->second.replicas;
      if (std::find(gpus.begin(), gpus.end(), tc.place.gpu) == gpus.end())
        input_error(t, in.addr->loc,
                    fmt::format("{} is on GPU {}, which holds no replica of '{}'", tc.name,
                                tc.place.gpu, in.addr->name));
      in.addr->name = replica_name(in.addr->name, tc.place.gpu);
    }
  // Conditions name replicas directly (m_gpu1[0]); the range itself has no value.
}

}  // namespace redscope::detail
