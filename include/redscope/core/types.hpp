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

// C/C++ `memory_order` of an access or fence as a C or CUDA C++ source wrote
// it (frontend/c: source-level events, docs/model.md "The scoped C++ model").
// NonAtomic: a plain access (and, in herd7's C tests, a volatile one).
enum class MemOrder : std::uint8_t {
  NonAtomic,
  Relaxed,
  Consume,
  Acquire,
  Release,
  AcqRel,
  SeqCst
};
std::string_view to_string(MemOrder o);  // "memory_order_acquire", "non-atomic"

// `cuda::thread_scope` of an atomic operation or fence; ISO C/C++ atomics are
// system-scoped (libcu++: cuda::std::atomic is cuda::atomic<T,
// thread_scope_system>).
enum class ThreadScope : std::uint8_t { Thread, Block, Cluster, Device, System };
std::string_view to_string(ThreadScope s);  // "thread_scope_block"

// Their PTX reading, the one table (frontend/c sets Instruction::sem and
// ::scope from it; model/primitives.cpp reads a source-level event's orders
// through it): non-atomic is .weak, relaxed and consume .relaxed, the others
// their namesakes; thread and block scope are .cta (PTX has none narrower:
// the THREAD set keeps thread scope apart), cluster .cluster, device .gpu,
// system .sys.
Sem ptx_sem(MemOrder o);
Scope ptx_scope(ThreadScope s);

// What the source said of a memory event: read by source-level models
// (A, NA, RLX ... SC, CON, THREAD: model/primitives.cpp); an event made
// from PTX has none.
struct SourceOrder {
  MemOrder order = MemOrder::NonAtomic;
  ThreadScope scope = ThreadScope::System;
  bool operator==(const SourceOrder&) const = default;
};

// State space (.space). `.shared` alone means `.shared::cta`.
enum class Space : std::uint8_t { Generic, Global, SharedCta, SharedCluster };

// The path a memory operation takes to memory (PTX ISA §8.6 "Proxies"): ld,
// st, atom and red use the generic proxy; surface (suld, sust, sured, suatom),
// texture (tld) and constant (ld.const, Dat3M's cold) accesses use their own.
// The async proxy: the source loads of multimem.cp.reduce.async.bulk.
enum class Proxy : std::uint8_t { Generic, Surface, Texture, Constant, Async };

// What a `fence.proxy.K` orders: accesses through proxy K against generic
// ones (Surface, Texture, Constant), or virtual aliases (Alias).
enum class ProxyFence : std::uint8_t { Alias, Surface, Texture, Constant, Async };

// Data types of ld/st/atom/red/setp (PTX §5.2). Untyped Dat3M instructions
// are S32. F16x2/BF16x2 are packed: two 16-bit lanes in one 32-bit value.
// Pred is the 1-bit type of predicate registers written by setp.
enum class DataType : std::uint8_t {
  B16,
  U16,
  S16,
  B32,
  U32,
  S32,
  B64,
  U64,
  S64,
  F16,
  BF16,
  F16x2,
  BF16x2,
  F32,
  F64,
  Pred
};

using ThreadId = int;         // index of a litmus thread (P0 → 0)
using EventId = std::size_t;  // vertex of an EventGraph

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
bool is_signed(DataType t);  // .s16/.s32/.s64
bool is_float(DataType t);   // f16, bf16, f32, f64 and the packed pairs
bool is_packed(DataType t);  // f16x2, bf16x2
bool is_bits(DataType t);    // .b16/.b32/.b64
// A packed type's lane type (F16x2 → F16); other types are their own lane.
DataType lane_type(DataType t);
unsigned lanes_of(DataType t);  // 2 for packed types, else 1

enum class FloatFormat : std::uint8_t;  // values.hpp
// The IEEE format of a float type's lanes; nullopt for integer types.
std::optional<FloatFormat> float_format(DataType t);

std::string_view to_string(Scope s);
std::string_view to_string(Sem s);
std::string_view to_string(Space s);
std::string_view to_string(Proxy p);
std::string_view to_string(ProxyFence f);
std::string_view to_string(DataType t);

std::optional<Scope> parse_scope(std::string_view s);
std::optional<Sem> parse_sem(std::string_view s);
std::optional<DataType> parse_data_type(std::string_view s);

// Renders the low `width_of(t)` bits of `bits`: integers in decimal in the
// signedness of `t`, floats as the shortest decimal that reads back to the
// same bits, packed pairs as their 32-bit hexadecimal pattern.
std::string format_value(std::uint64_t bits, DataType t);

// The bits a literal denotes at type `t`: decimal or hexadecimal integers
// (negative ones in two's complement), float literals for float types
// ("1e8", "-0.0", "inf", "nan", PTX "0f3F800000"), and hexadecimal bit
// patterns "0x..." for any type. nullopt when the literal does not denote a
// value of `t` (too wide, a float for an integer type, ...).
std::optional<std::uint64_t> literal_bits(std::string_view text, DataType t);

}  // namespace redscope
