// Symbolic values of an expanded test: constants, values returned by read
// events, and arithmetic over them. Engines give the read leaves meaning
// (Z3 bit-vectors, or concrete values in an explicit enumerator).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "redscope/core/litmus.hpp"
#include "redscope/core/values.hpp"

namespace redscope {

// Reference to a read event inside one thread's path: (thread, index in path).
struct ReadRef {
  ThreadId thread = 0;
  std::size_t index = 0;
  bool operator==(const ReadRef&) const = default;
};

struct ExprNode;
using ExprPtr = std::shared_ptr<const ExprNode>;

enum class ExprOp : std::uint8_t {
  Const,  // bits
  Read,   // value returned by a read event
  Add,
  Sub,
  Mul,
  Div,
  And,
  Or,
  Xor,  // bit-vector arithmetic at `width`
  Inc,
  Dec,
  Min,
  Max,  // PTX atom/red integer ops (values.hpp)
  FAdd,
  FMin,
  FMax,     // IEEE ops in format `ffmt` (FAdd flushes subnormals when `ftz`)
  Cmp,      // boolean (width 1): kids[0] cmp kids[1], signedness from `is_signed`
  FCmp,     // boolean: ordered float comparison in `ffmt` (false when a NaN is involved)
  Concat,   // kids[0] (high bits) ++ kids[1] (low bits)
  Extract,  // `width` bits of kids[0] starting at bit `lo`
  Not,      // boolean negation
  Ite,      // kids[0] ? kids[1] : kids[2]
  Resize,   // kids[0] truncated or extended (sign if is_signed) to `width`
};

struct ExprNode {
  ExprOp op = ExprOp::Const;
  unsigned width = 32;    // 1 for booleans
  bool is_signed = true;  // for Cmp and Div
  CmpOp cmp = CmpOp::Eq;
  FloatFormat ffmt = FloatFormat::F32;  // FAdd/FMin/FMax/FCmp
  bool ftz = false;                     // FAdd
  unsigned lo = 0;                      // Extract
  std::uint64_t bits = 0;               // Const
  ReadRef read;                         // Read
  std::vector<ExprPtr> kids;
  // Set at construction: the longest path to a leaf (leaves: 1), and the
  // node count of the tree the DAG unfolds to (saturating at kSizeCap).
  // Walkers recurse along kids, so the expansion bounds depth (kMaxExprDepth).
  std::uint32_t depth = 1;
  std::uint64_t size = 1;
  // Some node of the DAG is FAdd, FMin, FMax or FCmp (set at construction,
  // so that asking needs no walk).
  bool has_float = false;
};

// Deepest expression a register value may hold: PathBuilder rejects, at the
// instruction, a value computed by a longer chain of dependent operations, so
// that every recursive walker (evaluate, Z3 conversion, destruction) stays
// far from the stack limit.
inline constexpr std::uint32_t kMaxExprDepth = 1000;
inline constexpr std::uint64_t kSizeCap = std::uint64_t{1} << 40;

ExprPtr make_const(std::uint64_t bits, unsigned width);
ExprPtr make_read(ReadRef r, unsigned width);
// Folds constants; `op` must be an arithmetic ExprOp.
ExprPtr make_binary(ExprOp op, ExprPtr a, ExprPtr b, bool is_signed = true);
ExprPtr make_cmp(CmpOp c, ExprPtr a, ExprPtr b, bool is_signed);
// IEEE add/min/max (op ∈ FAdd, FMin, FMax) in format f.
ExprPtr make_float(ExprOp op, FloatFormat f, bool ftz, ExprPtr a, ExprPtr b);
ExprPtr make_fcmp(CmpOp c, FloatFormat f, ExprPtr a, ExprPtr b);
ExprPtr make_concat(ExprPtr hi, ExprPtr lo);
ExprPtr make_extract(ExprPtr a, unsigned lo, unsigned width);
ExprPtr make_not(ExprPtr a);
ExprPtr make_ite(ExprPtr c, ExprPtr a, ExprPtr b);
// Truncates or extends (sign- or zero-) to `width`.
ExprPtr make_resize(ExprPtr a, unsigned width, bool is_signed);

// Constant value of `e`, if it folds to one.
std::optional<std::uint64_t> const_value(const ExprPtr& e);

// Every read leaf of `e`, each once.
std::vector<ReadRef> reads_of(const ExprPtr& e);

// Evaluates `e` given values for its read leaves (masked to width).
std::uint64_t evaluate(const ExprPtr& e, const std::function<std::uint64_t(ReadRef)>& read_value);

std::uint64_t mask_to(std::uint64_t bits, unsigned width);

}  // namespace redscope
