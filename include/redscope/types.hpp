// Vocabulary types shared by every pipeline stage: scopes, semantics, state
// spaces, data types and thread placement (PTX ISA §8 "Memory Consistency Model").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace redscope {

// Scope tree of PTX §8.5: cta ⊂ cluster ⊂ gpu ⊂ sys.
enum class Scope : std::uint8_t { Cta, Cluster, Gpu, Sys };

// Memory-order semantics (.sem). `.volatile` is parsed as Relaxed with Sys scope.
enum class Sem : std::uint8_t { Weak, Relaxed, Acquire, Release, AcqRel, Sc };

// State space (.space). `.shared` alone means `.shared::cta`.
enum class Space : std::uint8_t { Generic, Global, SharedCta, SharedCluster };

// Integer data types of ld/st/atom/red. Untyped Dat3M instructions are S32.
enum class DataType : std::uint8_t { B32, U32, S32, B64, U64, S64 };

using ThreadId = int;            // index of a litmus thread (P0 → 0)
using EventId = std::size_t;     // vertex of an EventGraph

constexpr ThreadId kInitThread = -1;  // pseudo-thread owning the initial writes

// Where a thread runs. A thread declared without a cluster is alone in a
// cluster made of its CTA (cluster id derived from the CTA id).
struct Placement {
  int cta = 0;
  int cluster = 0;
  int gpu = 0;
  bool operator==(const Placement&) const = default;
};

// True when `observer` belongs to the set of threads named by `scope`
// relative to a thread placed at `origin` (PTX §8.5 "Scope").
bool scope_includes(Scope scope, const Placement& origin, const Placement& observer);

unsigned width_of(DataType t);
bool is_signed(DataType t);

std::string_view to_string(Scope s);
std::string_view to_string(Sem s);
std::string_view to_string(Space s);
std::string_view to_string(DataType t);

std::optional<Scope> parse_scope(std::string_view s);
std::optional<Sem> parse_sem(std::string_view s);
std::optional<DataType> parse_data_type(std::string_view s);

// Renders the low `width_of(t)` bits of `bits` as a decimal number in the
// signedness of `t`.
std::string format_value(std::uint64_t bits, DataType t);

}  // namespace redscope
