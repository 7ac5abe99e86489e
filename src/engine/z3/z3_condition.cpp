#include "engine/z3/z3_condition.hpp"

#include "redscope/engine/z3/z3_values.hpp"
#include "redscope/results/condition_plan.hpp"

namespace redscope {

// The condition `e` over the observables' Z3 terms, with the semantics of
// eval_condition (declared in z3_condition.hpp).
z3::expr condition_to_z3(z3::context& c, const CondExpr& e, const std::vector<Observable>& obs,
                         const std::vector<z3::expr>& terms) {
  switch (e.kind) {
    case CondExpr::Kind::True: return c.bool_val(true);
    case CondExpr::Kind::False: return c.bool_val(false);
    case CondExpr::Kind::And:
    case CondExpr::Kind::Or: {  // n-ary
      z3::expr_vector kids(c);
      for (const CondExpr& k : e.kids) kids.push_back(condition_to_z3(c, k, obs, terms));
      return e.kind == CondExpr::Kind::And ? z3::mk_and(kids) : z3::mk_or(kids);
    }
    case CondExpr::Kind::Not: return !condition_to_z3(c, e.kids[0], obs, terms);
    case CondExpr::Kind::Cmp: break;
  }
  const CmpPlan p = plan(e, obs);
  const unsigned w = width_of(p.type);
  std::vector<z3::expr> v;
  for (int i = 0; i < 2; ++i) {
    if (!p.side[i]) {
      v.push_back(c.bv_val(static_cast<std::uint64_t>(p.bits[i]), w));
      continue;
    }
    z3::expr t = terms[*p.side[i]];
    const DataType from = obs[*p.side[i]].type;
    const unsigned fw = width_of(from);
    if (fw > w)
      t = t.extract(w - 1, 0);
    else if (fw < w)
      t = is_signed(from) ? z3::sext(t, w - fw) : z3::zext(t, w - fw);
    v.push_back(t);
  }
  const z3::expr &a = v[0], &b = v[1];
  if (e.cmp == CmpOp::Eq) return a == b;
  if (e.cmp == CmpOp::Ne) return a != b;
  if (auto f = float_format(p.type)) return z3_float_compare(e.cmp, *f, a, b);
  const bool sgn = is_signed(p.type);
  switch (e.cmp) {
    case CmpOp::Lt: return sgn ? a < b : z3::ult(a, b);
    case CmpOp::Le: return sgn ? a <= b : z3::ule(a, b);
    case CmpOp::Gt: return sgn ? a > b : z3::ugt(a, b);
    case CmpOp::Ge: return sgn ? a >= b : z3::uge(a, b);
    default: return c.bool_val(true);
  }
}

z3::expr deciding_to_z3(z3::context& c, const LitmusTest& test, const std::vector<Observable>& obs,
                        const std::vector<z3::expr>& terms) {
  z3::expr sat = condition_to_z3(c, test.condition, obs, terms);
  for (std::size_t i = 0; i < obs.size(); ++i)
    if (obs[i].is_register && obs[i].reg.thread == kStatusThread &&
        obs[i].reg.name == kStatusRegister)
      sat = sat && terms[i] == c.bv_val(0, terms[i].get_sort().bv_size());
  return seeks_satisfying(test.quantifier) ? sat : !sat;
}

}  // namespace redscope
