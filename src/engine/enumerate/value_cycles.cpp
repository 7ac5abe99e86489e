#include "engine/enumerate/value_cycles.hpp"

#include <algorithm>
#include <bit>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace redscope::enumerate {

namespace {

std::uint64_t full(unsigned width) { return width >= 64 ? ~0ULL : (1ULL << width) - 1; }
std::uint64_t low(unsigned k) { return full(k); }

bool all_known(const KnownBits& k, unsigned width) { return k.known == full(width); }

// Two operands that are one value: the same node, or the same operation on
// the same operands (bounded: `limit` nodes compared in all).
bool same(const ExprNode& a, const ExprNode& b, int& limit) {
  if (&a == &b) return true;
  if (--limit < 0 || a.op != b.op || a.width != b.width || a.kids.size() != b.kids.size())
    return false;
  if (a.op == ExprOp::Const) return a.bits == b.bits;
  if (a.op == ExprOp::Read) return a.read == b.read;
  if (a.is_signed != b.is_signed || a.cmp != b.cmp || a.ffmt != b.ffmt || a.ftz != b.ftz ||
      a.lo != b.lo)
    return false;
  for (std::size_t i = 0; i < a.kids.size(); ++i)
    if (!same(*a.kids[i], *b.kids[i], limit)) return false;
  return true;
}

class Evaluator {
 public:
  explicit Evaluator(const std::function<KnownBits(ReadRef)>& read) : read_(read) {}

  KnownBits eval(const ExprNode& n) {
    if (auto it = memo_.find(&n); it != memo_.end()) return it->second;
    KnownBits k = node(n);
    k.known &= full(n.width);
    k.bits &= k.known;
    memo_.emplace(&n, k);
    return k;
  }

 private:
  KnownBits node(const ExprNode& n) {
    const unsigned w = n.width;
    if (n.op == ExprOp::Const) return {full(w), n.bits};
    if (n.op == ExprOp::Read) return read_(n.read);
    if (n.op == ExprOp::Ite) return ite(n);
    std::vector<KnownBits> k;
    bool known = true;
    for (const ExprPtr& kid : n.kids) {
      k.push_back(eval(*kid));
      known = known && all_known(k.back(), kid->width);
    }
    if (known) return {full(w), concrete(n, k)};
    if (n.kids.size() == 2) {
      int limit = 256;
      if (same(*n.kids[0], *n.kids[1], limit))
        if (const auto s = same_operands(n, k[0])) return *s;
    }
    return partial(n, k);
  }

  // The taken branch when the condition is known; else the bits both
  // branches agree on.
  KnownBits ite(const ExprNode& n) {
    const KnownBits c = eval(*n.kids[0]);
    if (all_known(c, n.kids[0]->width)) return eval(*n.kids[c.bits ? 1 : 2]);
    const KnownBits t = eval(*n.kids[1]), e = eval(*n.kids[2]);
    const std::uint64_t known = t.known & e.known & ~(t.bits ^ e.bits);
    return {known, t.bits & known};
  }

  // x - x, x ^ x: 0; x & x, x | x, min, max: x; x cmp x: whether cmp
  // holds on equals (integer comparisons only: a float NaN is unequal).
  static std::optional<KnownBits> same_operands(const ExprNode& n, const KnownBits& x) {
    switch (n.op) {
      case ExprOp::Sub:
      case ExprOp::Xor: return KnownBits{full(n.width), 0};
      case ExprOp::And:
      case ExprOp::Or:
      case ExprOp::Min:
      case ExprOp::Max: return x;
      case ExprOp::Cmp: {
        const bool eq = n.cmp == CmpOp::Eq || n.cmp == CmpOp::Le || n.cmp == CmpOp::Ge;
        return KnownBits{1, eq ? 1ULL : 0ULL};
      }
      default: return std::nullopt;
    }
  }

  // Some operand not known: what its known bits still fix.
  static KnownBits partial(const ExprNode& n, const std::vector<KnownBits>& k) {
    const unsigned w = n.width;
    switch (n.op) {
      case ExprOp::And: {
        const KnownBits &a = k[0], &b = k[1];
        const std::uint64_t zero = (a.known & ~a.bits) | (b.known & ~b.bits);
        const std::uint64_t known = (a.known & b.known) | zero;
        return {known, a.bits & b.bits & known};
      }
      case ExprOp::Or: {
        const KnownBits &a = k[0], &b = k[1];
        const std::uint64_t known = (a.known & b.known) | a.bits | b.bits;
        return {known, (a.bits | b.bits) & known};
      }
      case ExprOp::Xor: {
        const std::uint64_t known = k[0].known & k[1].known;
        return {known, (k[0].bits ^ k[1].bits) & known};
      }
      case ExprOp::Add:
      case ExprOp::Sub:
      case ExprOp::Mul: return low_bits(n.op, w, k[0], k[1]);
      case ExprOp::Concat: {
        const unsigned lw = n.kids[1]->width;
        return {(k[0].known << lw) | k[1].known, (k[0].bits << lw) | k[1].bits};
      }
      case ExprOp::Extract: return {k[0].known >> n.lo, k[0].bits >> n.lo};
      case ExprOp::Resize: return resize(n, k[0]);
      default: return {};
    }
  }

  // The low bits of a sum, difference or product depend only on the low
  // bits of the operands; a product has at least as many trailing zeros as
  // its operands together.
  static KnownBits low_bits(ExprOp op, unsigned w, const KnownBits& a, const KnownBits& b) {
    const unsigned k = static_cast<unsigned>(std::countr_one(a.known & b.known));
    const std::uint64_t x = a.bits, y = b.bits;
    const std::uint64_t v = op == ExprOp::Add ? x + y : op == ExprOp::Sub ? x - y : x * y;
    KnownBits r{low(k), v & low(k)};
    if (op == ExprOp::Mul) {
      const auto zeros = [](const KnownBits& z) {
        return static_cast<unsigned>(std::countr_one(z.known & ~z.bits));
      };
      const unsigned z = std::min(w, zeros(a) + zeros(b));
      r.known |= low(z);  // those bits are 0 in r.bits already, or computed as 0
      r.bits &= ~low(z);
    }
    return r;
  }

  // Truncation keeps the low bits; extension adds zeros, or copies of a
  // known sign bit.
  static KnownBits resize(const ExprNode& n, const KnownBits& a) {
    const unsigned kw = n.kids[0]->width;
    if (n.width <= kw) return a;
    const std::uint64_t high = full(n.width) & ~full(kw);
    const std::uint64_t sign = 1ULL << (kw - 1);
    if (!n.is_signed) return {a.known | high, a.bits};
    if (!(a.known & sign)) return a;
    return {a.known | high, (a.bits & sign) ? a.bits | high : a.bits};
  }

  // Every operand known: the node itself, evaluated over constants.
  static std::uint64_t concrete(const ExprNode& n, const std::vector<KnownBits>& k) {
    auto c = std::make_shared<ExprNode>(n);
    for (std::size_t i = 0; i < k.size(); ++i) c->kids[i] = make_const(k[i].bits, n.kids[i]->width);
    c->size = 1 + k.size();
    c->depth = 2;
    return evaluate(c, [](ReadRef) -> std::uint64_t { return 0; });
  }

  const std::function<KnownBits(ReadRef)>& read_;
  std::unordered_map<const ExprNode*, KnownBits> memo_;
};

using Visit = std::function<void(const std::vector<std::uint64_t>&)>;

// The search for one rf assignment (cycle_values).
class CycleSolver {
 public:
  CycleSolver(const Skeleton& sk, const std::vector<EventId>& reads, const std::vector<EventId>& rf,
              const Budget* budget)
      : sk_(sk),
        reads_(reads),
        rf_(rf),
        budget_(budget),
        kb_(sk.size()),
        val_(sk.size(), 0) {}

  void run(const std::function<void()>& tick, const Visit& visit) {
    if (!learn()) return;
    cut();
    bool closed = true;
    std::unordered_set<const ExprNode*> seen;
    for (EventId r : unknown_) closed = closed && low_closed(*value(r), seen);
    if (closed)
      lift_rounds(tick, visit);
    else
      odometer(tick, visit);
  }

 private:
  // Every assignment of the cut reads' unknown bits: an odometer over the
  // cut reads, each turning through the subsets of its unknown bits
  // ((s - mask) & mask).
  void odometer(const std::function<void()>& tick, const Visit& visit) {
    std::vector<std::uint64_t> unknown;  // per cut read: its unknown bits
    std::vector<std::uint64_t> at;       // per cut read: the unknown bits set now
    for (EventId c : cuts_) {
      unknown.push_back(full(value(c)->width) & ~kb_[c].known);
      at.push_back(0);
    }
    for (;;) {
      tick();
      for (std::size_t i = 0; i < cuts_.size(); ++i) val_[cuts_[i]] = kb_[cuts_[i]].bits | at[i];
      if (assign()) visit(val_);
      std::size_t i = 0;
      for (; i < cuts_.size(); ++i) {
        at[i] = (at[i] - unknown[i]) & unknown[i];
        if (at[i] != 0) break;
      }
      if (i == cuts_.size()) return;
    }
  }

  // Whether the low k bits of `n` depend only on the low k bits of its
  // reads, for every k: constants, reads, +, -, *, bitwise operations,
  // concatenation, truncation and extension (a sign bit is below the bits it
  // fills).
  static bool low_closed(const ExprNode& n, std::unordered_set<const ExprNode*>& seen) {
    if (!seen.insert(&n).second) return true;
    switch (n.op) {
      case ExprOp::Const:
      case ExprOp::Read: return true;
      case ExprOp::Add:
      case ExprOp::Sub:
      case ExprOp::Mul:
      case ExprOp::And:
      case ExprOp::Or:
      case ExprOp::Xor:
      case ExprOp::Concat:
      case ExprOp::Resize: break;
      default: return false;
    }
    for (const ExprPtr& k : n.kids)
      if (!low_closed(*k, seen)) return false;
    return true;
  }

  // When every equation is low-closed: bit by bit from bit 0 (Hensel
  // lifting), in rounds of growing bounds: round b takes the cut reads'
  // unknown bits below b only (the others 0) and visits the solutions no
  // earlier round did, so small values come first (a verdict stops at the
  // first deciding outcome: LB's out-of-thin-air 1 is the second solution
  // of a cycle where every value is one, not the 2^31st).
  void lift_rounds(const std::function<void()>& tick, const Visit& visit) {
    unsigned width = 0;
    for (EventId c : cuts_) width = std::max(width, value(c)->width);
    for (unsigned prev = 0, b = 1;; prev = b, b = std::min(2 * b, width)) {
      free_.clear();
      for (EventId c : cuts_) free_.push_back(full(value(c)->width) & ~kb_[c].known & low(b));
      prev_ = prev;
      lift(0, tick, visit);
      if (b >= width) return;
    }
  }

  // The cut reads' bits below `k` are set; each combination of their bit k
  // is kept when every cut read's equation holds on the bits up to k (a
  // solution's low bits satisfy the equations on those bits, so none is
  // cut). v = 3v (mod 2^32) takes about 64 steps, not 2^32.
  void lift(unsigned k, const std::function<void()>& tick, const Visit& visit) {
    tick();
    std::vector<std::size_t> free;  // the cut reads whose bit k is chosen here
    bool more = false;              // some bit at k or above is still to choose
    for (std::size_t i = 0; i < cuts_.size(); ++i) {
      if (k < 64 && (free_[i] >> k) != 0) more = true;
      if (k < 64 && (free_[i] >> k & 1)) free.push_back(i);
    }
    if (!more) {
      if (fresh() && assign()) visit(val_);
      return;
    }
    const std::uint64_t bit = 1ULL << k;
    for (std::uint64_t pick = 0; pick < (1ULL << free.size()); ++pick) {
      for (std::size_t j = 0; j < free.size(); ++j) {
        std::uint64_t& v = val_[cuts_[free[j]]];
        v = (pick >> j & 1) ? v | bit : v & ~bit;
      }
      if (holds_below(k + 1)) lift(k + 1, tick, visit);
    }
    for (std::size_t j : free) val_[cuts_[j]] &= ~bit;
  }

  // Not visited by an earlier round: some cut read has a chosen bit at or
  // above the earlier bound set.
  bool fresh() const {
    if (prev_ == 0) return true;
    for (std::size_t i = 0; i < cuts_.size(); ++i)
      if (val_[cuts_[i]] & free_[i] & ~low(prev_)) return true;
    return false;
  }

  // The non-cut unknown reads follow from the cut reads' bits set so far;
  // each cut read's equation holds on its low `bits` bits.
  bool holds_below(unsigned bits) {
    std::vector<char> done(sk_.size(), 0);
    for (EventId c : cuts_) done[c] = 1;
    for (EventId r : unknown_) eval_read(r, done);
    for (EventId c : cuts_) {
      const std::uint64_t m = low(std::min(bits, value(c)->width));
      const std::uint64_t v =
          evaluate(value(c), [&](ReadRef ref) { return val_[sk_.vertex(ref)]; });
      if ((v ^ val_[c]) & m) return false;
    }
    return true;
  }

  const ExprPtr& value(EventId r) const { return sk_.ev(rf_[r]).value; }

  // Rounds of known-bits evaluation from nothing known, until none learns
  // a bit (each round that goes on learns one: at most 64 per read).
  // False when two rounds disagree on a bit: no solution.
  bool learn() {
    const auto read = [&](ReadRef ref) { return kb_[sk_.vertex(ref)]; };
    for (bool more = true; more;) {
      check(budget_);
      more = false;
      for (EventId r : reads_) {
        KnownBits k = known_bits(value(r), read);
        const std::uint64_t both = k.known & kb_[r].known;
        if ((k.bits ^ kb_[r].bits) & both) return false;
        k = {k.known | kb_[r].known, k.bits | kb_[r].bits};
        if (k == kb_[r]) continue;
        kb_[r] = k;
        more = true;
      }
    }
    return true;
  }

  // The reads whose values are not known; of those, a read a depth-first
  // search reaches again while on its path is cut.
  void cut() {
    state_.assign(sk_.size(), 0);
    is_unknown_.assign(sk_.size(), 0);
    for (EventId r : reads_)
      if (!all_known(kb_[r], value(r)->width)) {
        unknown_.push_back(r);
        is_unknown_[r] = 1;
      }
    for (EventId r : reads_) val_[r] = kb_[r].bits;
    for (EventId r : unknown_) visit_dfs(r);
  }

  void visit_dfs(EventId r) {
    if (state_[r] != 0) return;
    state_[r] = 1;
    for (const ReadRef& ref : reads_of(value(r))) {
      const EventId d = sk_.vertex(ref);
      if (!is_unknown_[d]) continue;
      if (state_[d] == 1) {
        if (std::find(cuts_.begin(), cuts_.end(), d) == cuts_.end()) cuts_.push_back(d);
      } else {
        visit_dfs(d);
      }
    }
    state_[r] = 2;
  }

  // The cut reads' values set: the other unknown reads follow (no cycle is
  // left), then every read's equation is checked (a known read's too: its
  // bits hold in every solution, but this assignment may be none).
  bool assign() {
    std::vector<char> done(sk_.size(), 0);
    for (EventId c : cuts_) done[c] = 1;
    for (EventId r : unknown_) eval_read(r, done);
    for (EventId r : reads_)
      if (evaluate(value(r), [&](ReadRef ref) { return val_[sk_.vertex(ref)]; }) != val_[r])
        return false;
    return true;
  }

  std::uint64_t eval_read(EventId r, std::vector<char>& done) {
    if (done[r] || !is_unknown_[r]) return val_[r];
    done[r] = 1;
    val_[r] = evaluate(value(r), [&](ReadRef ref) { return eval_read(sk_.vertex(ref), done); });
    return val_[r];
  }

  const Skeleton& sk_;
  const std::vector<EventId>& reads_;
  const std::vector<EventId>& rf_;
  const Budget* budget_;
  std::vector<KnownBits> kb_;  // per event: what every solution has
  std::vector<std::uint64_t> val_;
  std::vector<EventId> unknown_, cuts_;
  std::vector<char> state_, is_unknown_;
  std::vector<std::uint64_t> free_;  // lift_rounds: per cut read, the bits chosen this round
  unsigned prev_ = 0;                // lift_rounds: the earlier round's bound
};

}  // namespace

KnownBits known_bits(const ExprPtr& e, const std::function<KnownBits(ReadRef)>& read) {
  return Evaluator(read).eval(*e);
}

void cycle_values(const Skeleton& sk, const std::vector<EventId>& reads,
                  const std::vector<EventId>& rf, const Budget* budget,
                  const std::function<void()>& tick,
                  const std::function<void(const std::vector<std::uint64_t>&)>& visit) {
  CycleSolver(sk, reads, rf, budget).run(tick, visit);
}

}  // namespace redscope::enumerate
