#include "redscope/core/expr.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace redscope {

std::uint64_t mask_to(std::uint64_t bits, unsigned width) {
  return width >= 64 ? bits : (bits & ((1ULL << width) - 1));
}

namespace {

std::int64_t as_signed(std::uint64_t bits, unsigned width) {
  if (width >= 64) return static_cast<std::int64_t>(bits);
  const std::uint64_t sign = 1ULL << (width - 1);
  bits = mask_to(bits, width);
  return static_cast<std::int64_t>((bits ^ sign)) - static_cast<std::int64_t>(sign);
}

bool compare(CmpOp c, std::uint64_t a, std::uint64_t b, unsigned width, bool sgn) {
  if (sgn) {
    const std::int64_t x = as_signed(a, width), y = as_signed(b, width);
    switch (c) {
      case CmpOp::Eq: return x == y;
      case CmpOp::Ne: return x != y;
      case CmpOp::Lt: return x < y;
      case CmpOp::Le: return x <= y;
      case CmpOp::Gt: return x > y;
      case CmpOp::Ge: return x >= y;
    }
  }
  a = mask_to(a, width);
  b = mask_to(b, width);
  switch (c) {
    case CmpOp::Eq: return a == b;
    case CmpOp::Ne: return a != b;
    case CmpOp::Lt: return a < b;
    case CmpOp::Le: return a <= b;
    case CmpOp::Gt: return a > b;
    case CmpOp::Ge: return a >= b;
  }
  return false;
}

// PTX integer division by zero is undefined; we define x/0 = all ones, as
// SMT-LIB's bvsdiv/bvudiv do, so that every engine agrees.
std::uint64_t arith(ExprOp op, std::uint64_t a, std::uint64_t b, unsigned w, bool sgn) {
  a = mask_to(a, w);
  b = mask_to(b, w);
  switch (op) {
    case ExprOp::Add: return mask_to(a + b, w);
    case ExprOp::Sub: return mask_to(a - b, w);
    case ExprOp::Mul: return mask_to(a * b, w);
    case ExprOp::And: return a & b;
    case ExprOp::Or: return a | b;
    case ExprOp::Xor: return a ^ b;
    case ExprOp::Inc: return int_inc(w, a, b);
    case ExprOp::Dec: return int_dec(w, a, b);
    case ExprOp::Min: return int_min(w, sgn, a, b);
    case ExprOp::Max: return int_max(w, sgn, a, b);
    case ExprOp::Div: {
      if (b == 0) {
        if (!sgn) return mask_to(~0ULL, w);
        return as_signed(a, w) < 0 ? 1 : mask_to(~0ULL, w);  // SMT-LIB bvsdiv by zero
      }
      if (!sgn) return a / b;
      const std::int64_t x = as_signed(a, w), y = as_signed(b, w);
      if (y == -1) return mask_to(0 - a, w);  // avoids INT_MIN / -1 overflow
      return mask_to(static_cast<std::uint64_t>(x / y), w);
    }
    default: return 0;
  }
}

std::uint64_t float_op(ExprOp op, FloatFormat f, bool ftz, std::uint64_t a, std::uint64_t b) {
  switch (op) {
    case ExprOp::FAdd: return float_add(f, a, b, ftz);
    case ExprOp::FMin: return float_min(f, a, b);
    case ExprOp::FMax: return float_max(f, a, b);
    default: return 0;
  }
}

ExprPtr node(ExprNode n) {
  n.depth = 1;
  n.size = 1;
  n.has_float =
      n.op == ExprOp::FAdd || n.op == ExprOp::FMin || n.op == ExprOp::FMax || n.op == ExprOp::FCmp;
  for (const ExprPtr& k : n.kids) {
    n.has_float = n.has_float || k->has_float;
    n.depth = std::max(n.depth, k->depth + 1);
    n.size = std::min(kSizeCap, n.size + k->size);
  }
  return std::make_shared<const ExprNode>(std::move(n));
}

}  // namespace

ExprPtr make_const(std::uint64_t bits, unsigned width) {
  ExprNode n;
  n.op = ExprOp::Const;
  n.width = width;
  n.bits = mask_to(bits, width);
  return node(std::move(n));
}

ExprPtr make_read(ReadRef r, unsigned width) {
  ExprNode n;
  n.op = ExprOp::Read;
  n.width = width;
  n.read = r;
  return node(std::move(n));
}

ExprPtr make_binary(ExprOp op, ExprPtr a, ExprPtr b, bool is_signed) {
  const unsigned w = a->width;
  b = make_resize(std::move(b), w, is_signed);
  if (a->op == ExprOp::Const && b->op == ExprOp::Const)
    return make_const(arith(op, a->bits, b->bits, w, is_signed), w);
  ExprNode n;
  n.op = op;
  n.width = w;
  n.is_signed = is_signed;
  n.kids = {std::move(a), std::move(b)};
  return node(std::move(n));
}

ExprPtr make_cmp(CmpOp c, ExprPtr a, ExprPtr b, bool is_signed) {
  b = make_resize(std::move(b), a->width, is_signed);
  if (a->op == ExprOp::Const && b->op == ExprOp::Const)
    return make_const(compare(c, a->bits, b->bits, a->width, is_signed) ? 1 : 0, 1);
  if (a == b) {
    const bool r = c == CmpOp::Eq || c == CmpOp::Le || c == CmpOp::Ge;
    return make_const(r ? 1 : 0, 1);
  }
  ExprNode n;
  n.op = ExprOp::Cmp;
  n.width = 1;
  n.cmp = c;
  n.is_signed = is_signed;
  n.kids = {std::move(a), std::move(b)};
  return node(std::move(n));
}

ExprPtr make_float(ExprOp op, FloatFormat f, bool ftz, ExprPtr a, ExprPtr b) {
  const unsigned w = width_of(f);
  if (a->op == ExprOp::Const && b->op == ExprOp::Const)
    return make_const(float_op(op, f, ftz, a->bits, b->bits), w);
  ExprNode n;
  n.op = op;
  n.width = w;
  n.ffmt = f;
  n.ftz = ftz;
  n.kids = {std::move(a), std::move(b)};
  return node(std::move(n));
}

ExprPtr make_fcmp(CmpOp c, FloatFormat f, ExprPtr a, ExprPtr b) {
  if (a->op == ExprOp::Const && b->op == ExprOp::Const)
    return make_const(float_compare(c, f, a->bits, b->bits) ? 1 : 0, 1);
  ExprNode n;
  n.op = ExprOp::FCmp;
  n.width = 1;
  n.cmp = c;
  n.ffmt = f;
  n.kids = {std::move(a), std::move(b)};
  return node(std::move(n));
}

ExprPtr make_concat(ExprPtr hi, ExprPtr lo) {
  const unsigned w = hi->width + lo->width;
  if (hi->op == ExprOp::Const && lo->op == ExprOp::Const)
    return make_const((hi->bits << lo->width) | lo->bits, w);
  ExprNode n;
  n.op = ExprOp::Concat;
  n.width = w;
  n.kids = {std::move(hi), std::move(lo)};
  return node(std::move(n));
}

ExprPtr make_extract(ExprPtr a, unsigned lo, unsigned width) {
  if (lo == 0 && width == a->width) return a;
  if (a->op == ExprOp::Const) return make_const(a->bits >> lo, width);
  ExprNode n;
  n.op = ExprOp::Extract;
  n.width = width;
  n.lo = lo;
  n.kids = {std::move(a)};
  return node(std::move(n));
}

ExprPtr make_not(ExprPtr a) {
  if (a->op == ExprOp::Const) return make_const(a->bits ? 0 : 1, 1);
  if (a->op == ExprOp::Not) return a->kids[0];
  ExprNode n;
  n.op = ExprOp::Not;
  n.width = 1;
  n.kids = {std::move(a)};
  return node(std::move(n));
}

ExprPtr make_ite(ExprPtr c, ExprPtr a, ExprPtr b) {
  if (c->op == ExprOp::Const) return c->bits ? a : b;
  if (a == b) return a;
  ExprNode n;
  n.op = ExprOp::Ite;
  n.width = a->width;
  n.kids = {std::move(c), std::move(a), std::move(b)};
  return node(std::move(n));
}

ExprPtr make_resize(ExprPtr a, unsigned width, bool is_signed) {
  if (a->width == width) return a;
  if (a->op == ExprOp::Const) {
    std::uint64_t v = a->bits;
    if (is_signed && width > a->width) v = static_cast<std::uint64_t>(as_signed(v, a->width));
    return make_const(v, width);
  }
  ExprNode n;
  n.op = ExprOp::Resize;
  n.width = width;
  n.is_signed = is_signed;
  n.kids = {std::move(a)};
  return node(std::move(n));
}

std::optional<std::uint64_t> const_value(const ExprPtr& e) {
  if (e->op == ExprOp::Const) return e->bits;
  return std::nullopt;
}

std::vector<ReadRef> reads_of(const ExprPtr& e) {
  // Iterative, and each shared node once: `add r0, r0, r0` repeated makes a
  // DAG whose unfolded tree is exponential in its node count.
  std::vector<ReadRef> out;
  std::unordered_set<const ExprNode*> seen;
  std::vector<const ExprNode*> stack{e.get()};
  while (!stack.empty()) {
    const ExprNode* n = stack.back();
    stack.pop_back();
    if (!n->kids.empty() && !seen.insert(n).second) continue;
    if (n->op == ExprOp::Read && std::find(out.begin(), out.end(), n->read) == out.end())
      out.push_back(n->read);
    for (const ExprPtr& k : n->kids) stack.push_back(k.get());
  }
  return out;
}

namespace {

// One node's value; kid(i) gives the value of kids[i] (only the taken side
// of an Ite is asked for).
template <class Kid>
std::uint64_t apply(const ExprNode& n, const std::function<std::uint64_t(ReadRef)>& read_value,
                    Kid&& kid) {
  switch (n.op) {
    case ExprOp::Const: return n.bits;
    case ExprOp::Read: return mask_to(read_value(n.read), n.width);
    case ExprOp::Cmp: {
      const std::uint64_t a = kid(0), b = kid(1);
      return compare(n.cmp, a, b, n.kids[0]->width, n.is_signed) ? 1 : 0;
    }
    case ExprOp::Not: return kid(0) ? 0 : 1;
    case ExprOp::Resize: {
      const std::uint64_t v = kid(0);
      const unsigned kw = n.kids[0]->width;
      if (n.is_signed && kw < n.width)
        return mask_to(static_cast<std::uint64_t>(as_signed(v, kw)), n.width);
      return mask_to(v, n.width);
    }
    case ExprOp::Ite: return kid(0) ? kid(1) : kid(2);
    case ExprOp::FAdd:
    case ExprOp::FMin:
    case ExprOp::FMax: {
      const std::uint64_t a = kid(0), b = kid(1);
      return float_op(n.op, n.ffmt, n.ftz, a, b);
    }
    case ExprOp::FCmp: {
      const std::uint64_t a = kid(0), b = kid(1);
      return float_compare(n.cmp, n.ffmt, a, b) ? 1 : 0;
    }
    case ExprOp::Concat: {
      const std::uint64_t hi = kid(0), lo = kid(1);
      return mask_to((hi << n.kids[1]->width) | lo, n.width);
    }
    case ExprOp::Extract: return mask_to(kid(0) >> n.lo, n.width);
    default: {
      const std::uint64_t a = kid(0), b = kid(1);
      return arith(n.op, a, b, n.width, n.is_signed);
    }
  }
}

// Trees this small are walked directly; larger ones (shared subterms that
// unfold to many nodes) evaluate each node once.
constexpr std::uint64_t kDirectEvalSize = 4096;

std::uint64_t evaluate_tree(const ExprNode& n,
                            const std::function<std::uint64_t(ReadRef)>& read_value) {
  return apply(n, read_value, [&](std::size_t i) { return evaluate_tree(*n.kids[i], read_value); });
}

std::uint64_t evaluate_dag(const ExprNode& n,
                           const std::function<std::uint64_t(ReadRef)>& read_value,
                           std::unordered_map<const ExprNode*, std::uint64_t>& memo) {
  if (n.size <= kDirectEvalSize) return evaluate_tree(n, read_value);
  if (auto it = memo.find(&n); it != memo.end()) return it->second;
  const std::uint64_t v = apply(
      n, read_value, [&](std::size_t i) { return evaluate_dag(*n.kids[i], read_value, memo); });
  memo.emplace(&n, v);
  return v;
}

}  // namespace

std::uint64_t evaluate(const ExprPtr& e, const std::function<std::uint64_t(ReadRef)>& read_value) {
  if (e->size <= kDirectEvalSize) return evaluate_tree(*e, read_value);
  std::unordered_map<const ExprNode*, std::uint64_t> memo;
  return evaluate_dag(*e, read_value, memo);
}

}  // namespace redscope
