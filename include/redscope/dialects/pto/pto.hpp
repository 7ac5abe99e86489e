// Ascend PTO vector programs (seed ../shared/seeds/pto-vector-reductions.txt):
// the program the PTO dialect produces (src/dialects/pto) and the bit-exact
// semantics of the seven reductions over lane bit patterns. The Z3 twin of
// `reduce` is src/engine/z3/pto_z3_values.hpp; tests/test_pto.cpp runs the
// two against each other. Every choice the seed leaves open is stated at
// the function that makes it and in docs/model.md "PTO vector reductions".
#pragma once

#include <bitset>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/diagnostic.hpp"
#include "redscope/core/litmus.hpp"
#include "redscope/core/types.hpp"
#include "redscope/core/values.hpp"

namespace redscope::pto {

// GCC's 128-bit integer, for exact sums of 64-bit lanes and loop trip
// counts of 64-bit bounds (__extension__: not ISO C++, -Wpedantic is on).
__extension__ using Int128 = __int128;

// A vector register holds 256 bytes: 8 VLanes of 32 bytes (seed, "Per-VLane
// (Group) Reductions").
inline constexpr unsigned kVregBytes = 256;
inline constexpr unsigned kVLanes = 8;

enum class Elem : std::uint8_t { I16, I32, I64, F16, F32 };

unsigned bits_of(Elem e);
// N = 256 bytes / element size: 128 (i16, f16), 64 (i32, f32), 32 (i64).
unsigned lanes_of(Elem e);
bool is_float(Elem e);
FloatFormat float_format(Elem e);    // F16 or F32; integers: not called
std::string_view to_string(Elem e);  // "f32"
std::optional<Elem> parse_elem(std::string_view s);
// The type results are reported in: s16/s32/s64 (MLIR's signless integers
// read as two's complement, as vcmax compares them), f16, f32.
DataType data_type(Elem e);

// A predicate: one bit per byte of the register, as the b8/b16/b32
// granularities suggest (pset_b32 sets the bit of each 4-byte element's first
// byte). Lane i of an E-byte type is active when the bit of its first byte,
// i*E, is set.
using Mask = std::bitset<kVregBytes>;
bool lane_active(const Mask& m, Elem e, unsigned lane);
// The mask with exactly `lanes` active at granularity `bytes` (1, 2, 4).
Mask mask_of(const std::vector<bool>& lanes, unsigned bytes);

enum class Reduce : std::uint8_t { Add, Max, Min, GroupAdd, GroupMax, GroupMin, PrefixAdd };
std::string_view op_name(Reduce r);                             // "vcadd", ...
std::optional<Reduce> parse_reduce(std::string_view mnemonic);  // "pto.vcadd"
bool is_group(Reduce r);
// The seed's "A5 types" per op: vcadd i16-i64, f16, f32; vcmax, vcmin and the
// group reductions i16-i32, f16, f32; vcpadd f16, f32.
bool takes(Reduce r, Elem e);
// The types an op takes, for messages: "i16, i32, i64, f16, f32".
std::string type_list(Reduce r);

// The order in which a float sum adds its lanes. The seed says both: its
// execution model calls vcadd a tree ("pairs of lanes are added recursively
// until lane 0 holds the total") and its pseudocode a loop from lane 0.
enum class Order : std::uint8_t { Sequential, Tree };
std::string_view to_string(Order o);
// Whether the order can change the result: float vcadd and vcgadd. Max and
// min with first-index-wins are the same in any order; vcpadd's scan is
// sequential in the seed and nowhere called a tree.
bool order_matters(Reduce r, Elem e);

using Lanes = std::vector<std::uint64_t>;  // lanes_of(e) bit patterns

// What the seed leaves open and `reduce` decided, for reports.
struct ReduceNotes {
  bool empty_group = false;  // a vcgmax/vcgmin group with no active lane: 0
  bool only_nan = false;     // vcmax/vcmin with active lanes, all NaN: ±inf, index 0
  bool int_wrapped = false;  // an integer sum left the element type (wraps)
};

// The result register of reduction `r` over `in` under `m` (docs/model.md):
//   vcadd   lane 0 = sum of the active lanes (0 when none), the rest 0
//   vcmax   lane 0 = the greatest active value, lane 1 = its index as an
//   vcmin   unsigned integer of the element width (first index on ties; NaN
//           never compares greater, so it is skipped; start -inf / +inf,
//           INT_MIN / INT_MAX); no active lane: all zero
//   vcgadd  per VLane g of K = N/8 lanes: lane g*K = the sum of its active
//           lanes (inactive count as zero), the rest 0
//   vcgmax  per VLane: lane g*K = its extremum; a VLane with no active lane
//   vcgmin  gives 0 (the zero-fill convention of the full reductions)
//   vcpadd  inclusive scan over the active lanes; an inactive lane adds
//           nothing and its own result lane is 0
// Float sums round to nearest even after each addition (values.hpp
// float_add, subnormals kept); a NaN result is canonical_nan. Integer sums
// wrap in the element width.
Lanes reduce(Reduce r, Elem e, const Lanes& in, const Mask& m, Order order,
             ReduceNotes* notes = nullptr);

// How many representable values lie between two floats of one format (0 when
// equal, +0 and -0 are 1 apart); nullopt when either is NaN.
std::optional<std::uint64_t> ulp_distance(FloatFormat f, std::uint64_t a, std::uint64_t b);

// ---- the program ---------------------------------------------------------

enum class OpKind : std::uint8_t { Load, Store, Reduce, Barrier };
// vlds/vsts distributions: NORM (N consecutive elements), BRC_B16/BRC_B32
// (load one element into every lane), 1PT (store lane 0 alone).
enum class Dist : std::uint8_t { Norm, Broadcast, OnePoint };

// One executed operation (loops are unrolled; arith and pset are folded).
struct Op {
  OpKind kind = OpKind::Barrier;
  SourceLoc loc;
  std::string text;  // "pto.vcadd %vec, %active"
  Reduce reduce = Reduce::Add;
  Elem elem = Elem::F32;
  std::string dst;         // Load, Reduce: the register written
  std::string src;         // Store, Reduce: the register read
  Mask mask;               // all set when the op names none
  std::string buffer;      // Load, Store
  std::size_t offset = 0;  // element index into the buffer
  Dist dist = Dist::Norm;
  std::size_t static_op = 0;  // index into Program::statics
};

struct Core {
  std::string name;  // "P0"
  std::vector<Op> ops;
  std::map<std::string, Elem> regs;   // every vector register and its type
  std::map<std::string, Lanes> init;  // contents given by the init block (else 0)
};

// A unified-buffer array shared by the cores.
struct Buffer {
  std::string name;
  Elem elem = Elem::F32;
  std::vector<std::size_t> shape;  // [64] or [rows][64]
  Lanes init;                      // one per element
  std::vector<bool> given;         // whether the init block gives it
  SourceLoc loc;
  std::size_t size() const { return init.size(); }
};

// An operation as written, with how often it runs once loops are unrolled.
struct StaticOp {
  OpKind kind = OpKind::Barrier;
  SourceLoc loc;
  std::string text;
  std::string mnemonic;  // "pto.vcadd", "pto.vlds", ...
  Reduce reduce = Reduce::Add;
  Elem elem = Elem::F32;
  std::size_t executions = 0;
  std::string core;
};

struct Program : redscope::Program {
  std::vector<Buffer> buffers;
  std::vector<Core> cores;
  std::vector<StaticOp> statics;  // in source order
  const Buffer* buffer(std::string_view name) const;
};

// The PTO program a test carries (LitmusTest::program), or null when it
// carries none or another dialect's.
inline const Program* program_of(const LitmusTest& t) {
  return dynamic_cast<const Program*>(t.program.get());
}

}  // namespace redscope::pto
