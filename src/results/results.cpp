// Results, whatever produced them: the observables of a test, its condition
// evaluated on concrete values, and a TestResult settled from the outcomes
// an engine found. No engine, solver or model here.
#include <algorithm>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "redscope/results/condition_plan.hpp"
#include "redscope/results/outcome_store.hpp"
#include "redscope/results/results.hpp"

namespace redscope {

std::string_view to_string(Observation o) {
  switch (o) {
    case Observation::Always: return "Always";
    case Observation::Sometimes: return "Sometimes";
    case Observation::Never: return "Never";
  }
  return "?";
}

std::string TestResult::render_value(std::size_t outcome, std::size_t obs) const {
  return format_value(outcomes[outcome].values[obs], observables[obs].type);
}

namespace {
bool is_status(const Observable& o) {
  return o.is_register && o.reg.thread == kStatusThread && o.reg.name == kStatusRegister;
}
std::optional<std::size_t> status_index(const std::vector<Observable>& obs) {
  for (std::size_t i = 0; i < obs.size(); ++i)
    if (is_status(obs[i])) return i;
  return std::nullopt;
}
}  // namespace

bool has_status_observable(const std::vector<Observable>& obs) {
  return status_index(obs).has_value();
}

std::optional<std::string> TestResult::status_text(std::size_t outcome) const {
  return status_of(outcomes[outcome].values);
}

std::optional<std::string> TestResult::status_of(const std::vector<std::uint64_t>& values) const {
  const auto k = status_index(observables);
  if (!k) return std::nullopt;
  const std::uint64_t v = values[*k];
  if (v == 0) return std::nullopt;
  if (v == kStatusTrap) return std::string("trap");
  const std::size_t i = v - kStatusUndefined;
  return "undefined: " + (i < undefined_reasons.size() ? undefined_reasons[i] : std::string("?"));
}

std::vector<Observable> observables_of(const LitmusTest& t, const Expansion& ex, bool observe_all) {
  std::map<RegName, DataType> regs;
  std::map<std::string, DataType> locs;
  std::map<std::string, LaneView> views;  // condition names of lanes inside cells
  for (const Skeleton& s : ex.skeletons) {
    for (const auto& [r, ty] : s.reg_types)
      if (observe_all) regs.emplace(r, ty);
    if (observe_all)
      for (const auto& [x, ty] : s.loc_types) locs.emplace(x, ty);
  }
  auto reg_type = [&](const RegName& r) {
    for (const Skeleton& s : ex.skeletons) {
      auto it = s.reg_types.find(r);
      if (it != s.reg_types.end()) return it->second;
    }
    return DataType::S32;
  };
  auto add_term = [&](const CondTerm& term) {
    if (term.kind == CondTerm::Kind::Reg) {
      RegName r{term.thread, term.name};
      regs.emplace(r, reg_type(r));
    }
    if (term.kind != CondTerm::Kind::Loc) return;
    if (const auto v = ex.lane_views.find(term.name); v != ex.lane_views.end())
      views.emplace(term.name, v->second);
    else
      locs.emplace(term.name, ex.skeletons.front().loc_types.at(term.name));
  };
  std::function<void(const CondExpr&)> walk = [&](const CondExpr& e) {
    if (e.kind == CondExpr::Kind::Cmp) {
      add_term(e.lhs);
      add_term(e.rhs);
    }
    for (const CondExpr& k : e.kids) walk(k);
  };
  walk(t.condition);
  if (t.filter) walk(*t.filter);
  for (const CondTerm& term : t.locations) add_term(term);
  std::vector<Observable> out;
  for (const auto& [r, ty] : regs)
    if (r.thread != kStatusThread)
      out.push_back(
          Observable{fmt::format("{}:{}", t.threads.at(r.thread).name, r.name), true, r, "", ty});
  for (const auto& [x, ty] : locs) out.push_back(Observable{x, false, {}, x, ty});
  for (const auto& [x, v] : views)
    out.push_back(Observable{x, false, {}, v.cell, v.type, v.shift, v.width});
  // An execution that may end early (kStatusRegister) is always observed.
  const RegName status{kStatusThread, kStatusRegister};
  for (const Skeleton& s : ex.skeletons)
    if (s.final_regs.count(status)) {
      out.push_back(Observable{"status", true, status, "", DataType::U32});
      break;
    }
  return out;
}

namespace {

bool names(const CondTerm& t, const Observable& o) {
  return t.kind == CondTerm::Kind::Reg
             ? o.is_register && o.reg.thread == t.thread && o.reg.name == t.name
             : !o.is_register && o.label == t.name;  // a lane's loc is its cell
}

// (register?, thread, name): how a term and an observable meet.
std::string key_of(bool reg, ThreadId thread, std::string_view name) {
  return fmt::format("{}\x1f{}\x1f{}", reg ? 'r' : 'l', thread, name);
}

// Conditions are evaluated once per outcome and comparison, so a linear scan
// is quadratic in a test with thousands of filter terms (50,000 `== 0` of a
// .test file: 28 s). A per-thread index of the last observable list seen, a
// cache only: every hit is verified against the list itself.
std::optional<std::size_t> find_observable(const CondTerm& t, const std::vector<Observable>& obs) {
  if (obs.size() < 32) {
    for (std::size_t i = 0; i < obs.size(); ++i)
      if (names(t, obs[i])) return i;
    return std::nullopt;
  }
  thread_local const std::vector<Observable>* indexed = nullptr;
  thread_local std::size_t indexed_size = 0;
  thread_local std::map<std::string, std::size_t> index;
  const bool reg = t.kind == CondTerm::Kind::Reg;
  const std::string k = key_of(reg, reg ? t.thread : 0, t.name);
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (indexed == &obs && indexed_size == obs.size()) {
      const auto it = index.find(k);
      if (it != index.end() && it->second < obs.size() && names(t, obs[it->second]))
        return it->second;
      if (it == index.end() && attempt == 1) return std::nullopt;
    }
    index.clear();                                // another list, or a stale entry: index this one
    for (std::size_t i = obs.size(); i-- > 0;) {  // the first of equal keys wins
      const Observable& o = obs[i];
      index[key_of(o.is_register, o.is_register ? o.reg.thread : 0,
                   o.is_register ? o.reg.name : o.label)] = i;
    }
    indexed = &obs;
    indexed_size = obs.size();
  }
  return std::nullopt;
}

std::uint64_t convert(std::uint64_t v, DataType from, DataType to) {
  const unsigned fw = width_of(from), tw = width_of(to);
  if (fw < tw && is_signed(from))
    v = static_cast<std::uint64_t>(static_cast<std::int64_t>(v << (64 - fw)) >> (64 - fw));
  return mask_to(v, tw);
}

// Equality compares bits (so -0.0 and 0.0 differ, and NaN equals its own
// pattern); ordering compares floats numerically and integers in their signedness.
bool compare_values(CmpOp op, DataType t, std::uint64_t a, std::uint64_t b) {
  if (op == CmpOp::Eq) return a == b;
  if (op == CmpOp::Ne) return a != b;
  if (auto f = float_format(t)) return float_compare(op, *f, a, b);
  const unsigned w = width_of(t);
  if (is_signed(t)) {
    const auto x = static_cast<std::int64_t>(a << (64 - w)) >> (64 - w),
               y = static_cast<std::int64_t>(b << (64 - w)) >> (64 - w);
    return op == CmpOp::Lt ? x < y : op == CmpOp::Le ? x <= y : op == CmpOp::Gt ? x > y : x >= y;
  }
  return op == CmpOp::Lt ? a < b : op == CmpOp::Le ? a <= b : op == CmpOp::Gt ? a > b : a >= b;
}

}  // namespace

// Constants take the type of the observable they are compared with (a
// float literal against a float location, ...); two observables compare
// at the left one's type.
CmpPlan plan(const CondExpr& e, const std::vector<Observable>& obs) {
  CmpPlan p;
  const CondTerm* terms[2] = {&e.lhs, &e.rhs};
  for (int i = 0; i < 2; ++i)
    if (terms[i]->kind != CondTerm::Kind::Const) p.side[i] = find_observable(*terms[i], obs);
  if (p.side[0])
    p.type = obs[*p.side[0]].type;
  else if (p.side[1])
    p.type = obs[*p.side[1]].type;
  for (int i = 0; i < 2; ++i) {
    if (terms[i]->kind != CondTerm::Kind::Const) continue;
    const auto b = literal_bits(terms[i]->value.text, p.type);
    if (!b) {
      p.ok = false;
      p.bad = &terms[i]->value;
      continue;
    }
    p.bits[i] = *b;
  }
  return p;
}

void check_condition_literals(const LitmusTest& t, const std::vector<Observable>& obs) {
  std::function<void(const CondExpr&)> walk = [&](const CondExpr& e) {
    if (e.kind == CondExpr::Kind::Cmp) {
      const CmpPlan p = plan(e, obs);
      if (!p.ok)
        throw InputError(
            Diagnostic{t.file, p.bad->loc,
                       fmt::format("'{}' is not a value of type .{}, the type it is compared at",
                                   p.bad->text, to_string(p.type))});
    }
    for (const CondExpr& k : e.kids) walk(k);
  };
  walk(t.condition);
  if (t.filter) walk(*t.filter);
}

bool eval_condition(const CondExpr& c, const std::vector<Observable>& obs,
                    const std::vector<std::uint64_t>& values) {
  switch (c.kind) {
    case CondExpr::Kind::True: return true;
    case CondExpr::Kind::False: return false;
    case CondExpr::Kind::And:  // n-ary: the parser keeps `a /\ b /\ c` flat
      for (const CondExpr& k : c.kids)
        if (!eval_condition(k, obs, values)) return false;
      return true;
    case CondExpr::Kind::Or:
      for (const CondExpr& k : c.kids)
        if (eval_condition(k, obs, values)) return true;
      return false;
    case CondExpr::Kind::Not: return !eval_condition(c.kids[0], obs, values);
    case CondExpr::Kind::Cmp: break;
  }
  const CmpPlan p = plan(c, obs);
  std::uint64_t v[2];
  for (int i = 0; i < 2; ++i)
    v[i] = p.side[i] ? convert(values[*p.side[i]], obs[*p.side[i]].type, p.type) : p.bits[i];
  return compare_values(c.cmp, p.type, v[0], v[1]);
}

ConditionProgram::ConditionProgram(const CondExpr& c, const std::vector<Observable>& obs)
    : root_(compile(c, obs)) {}

ConditionProgram::Node ConditionProgram::compile(const CondExpr& c,
                                                 const std::vector<Observable>& obs) {
  Node n;
  n.kind = c.kind;
  n.cmp = c.cmp;
  if (c.kind == CondExpr::Kind::Cmp) {
    n.plan = plan(c, obs);
    for (int i = 0; i < 2; ++i)
      if (n.plan.side[i]) n.from[i] = obs[*n.plan.side[i]].type;
  }
  for (const CondExpr& k : c.kids) n.kids.push_back(compile(k, obs));
  return n;
}

// eval_condition over the compiled tree.
bool ConditionProgram::eval(const Node& n, std::span<const std::uint64_t> values) {
  switch (n.kind) {
    case CondExpr::Kind::True: return true;
    case CondExpr::Kind::False: return false;
    case CondExpr::Kind::And:
      for (const Node& k : n.kids)
        if (!eval(k, values)) return false;
      return true;
    case CondExpr::Kind::Or:
      for (const Node& k : n.kids)
        if (eval(k, values)) return true;
      return false;
    case CondExpr::Kind::Not: return !eval(n.kids[0], values);
    case CondExpr::Kind::Cmp: break;
  }
  const CmpPlan& p = n.plan;
  std::uint64_t v[2];
  for (int i = 0; i < 2; ++i)
    v[i] = p.side[i] ? convert(values[*p.side[i]], n.from[i], p.type) : p.bits[i];
  return compare_values(n.cmp, p.type, v[0], v[1]);
}

void clear_ended(const std::vector<Observable>& observables, std::vector<std::uint64_t>& v) {
  const auto status = status_index(observables);
  if (!status || v[*status] == 0) return;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (i != *status) v[i] = 0;
}

void settle_result(TestResult& r, const LitmusTest& test,
                   std::map<std::vector<std::uint64_t>, Witness> found) {
  // An execution that ended early has no final values: one outcome per
  // status, which satisfies no condition. Nodes move, keys and witnesses
  // are not copied (a million outcomes: a million vectors saved).
  const auto status = status_index(r.observables);
  if (status) {
    std::map<std::vector<std::uint64_t>, Witness> merged;
    while (!found.empty()) {
      auto node = found.extract(found.begin());
      clear_ended(r.observables, node.key());
      merged.insert(std::move(node));  // the first (smallest values) keeps its witness
    }
    found = std::move(merged);
  }
  r.outcomes.reserve(found.size());
  while (!found.empty()) {
    auto node = found.extract(found.begin());
    std::vector<std::uint64_t>& vals = node.key();
    const bool sat =
        (!status || vals[*status] == 0) && eval_condition(test.condition, r.observables, vals);
    r.outcomes.push_back(Outcome{std::move(vals), sat, std::move(node.mapped())});
  }
  settle_outcomes(r, test);
}

namespace {

// The verdict and the observation from the numbers of satisfying and of
// violating outcomes.
void settle_counts(TestResult& r, const LitmusTest& test, std::size_t sat, std::size_t unsat) {
  r.observation = sat == 0     ? Observation::Never
                  : unsat == 0 ? Observation::Always
                               : Observation::Sometimes;
  switch (test.quantifier) {
    case Quantifier::Exists:
    case Quantifier::Permit:
    case Quantifier::Check: r.holds = sat > 0; break;
    case Quantifier::NotExists: r.holds = sat == 0; break;
    case Quantifier::Forall:
    case Quantifier::Assert: r.holds = unsat == 0; break;
  }
}

}  // namespace

void settle_outcomes(TestResult& r, const LitmusTest& test) {
  // Sorted by the values as their types read them (a signed type's values
  // sign-extended from its width), each observable's shift worked out once.
  std::vector<unsigned> shift;
  for (const Observable& o : r.observables) {
    const unsigned w = width_of(o.type);
    shift.push_back(is_signed(o.type) && w < 64 ? 64 - w : 0);
  }
  const auto before = [&](const Outcome& a, const Outcome& b) {
    for (std::size_t i = 0; i < a.values.size(); ++i) {
      const auto x = static_cast<std::int64_t>(a.values[i] << shift[i]) >> shift[i],
                 y = static_cast<std::int64_t>(b.values[i] << shift[i]) >> shift[i];
      if (x != y) return x < y;
    }
    return false;
  };
  // The map handed them over in unsigned order, which is this order whenever
  // no signed value is negative: then the check is all the sort costs (a
  // million outcomes: 1 s of moving witnesses saved).
  if (!std::is_sorted(r.outcomes.begin(), r.outcomes.end(), before))
    std::sort(r.outcomes.begin(), r.outcomes.end(), before);
  const auto sat = static_cast<std::size_t>(std::count_if(
      r.outcomes.begin(), r.outcomes.end(), [](const Outcome& o) { return o.satisfies; }));
  settle_counts(r, test, sat, r.outcomes.size() - sat);
}

void settle_listing(TestResult& r, const LitmusTest& test, std::shared_ptr<OutcomeStore> store) {
  store->finish();
  r.outcomes.clear();
  settle_counts(r, test, store->satisfying(), store->size() - store->satisfying());
  r.listing = std::move(store);
}

std::size_t TestResult::outcome_count() const {
  return listing ? listing->size() : outcomes.size();
}

std::vector<std::string> EdgeTexts::texts() const {
  std::vector<std::string> v;
  v.reserve(items_.size());
  for (const Item& i : items_) v.push_back(*i);
  return v;
}

std::string_view verdict_by_word(VerdictBy b) {
  return b == VerdictBy::Witness ? "witness" : "proof";
}

std::string_view proof_words(VerdictBy b) {
  switch (b) {
    case VerdictBy::Witness: return "";
    case VerdictBy::SolverProof: return "one solver query per path";
    case VerdictBy::Exhausted: return "enumeration exhausted";
    case VerdictBy::Listing: return "every outcome listed";
  }
  return "";
}

bool seeks_satisfying(Quantifier q) { return q != Quantifier::Forall && q != Quantifier::Assert; }

bool decides(const std::vector<Observable>& obs, const LitmusTest& test,
             const std::vector<std::uint64_t>& v) {
  const auto status = status_index(obs);
  const bool sat = (!status || v[*status] == 0) && eval_condition(test.condition, obs, v);
  return sat == seeks_satisfying(test.quantifier);
}

void settle_verdict(TestResult& r, const LitmusTest& test,
                    std::optional<std::pair<std::vector<std::uint64_t>, Witness>> found,
                    VerdictBy how) {
  r.outcomes.clear();
  r.verdict_only = true;
  const bool seek_sat = seeks_satisfying(test.quantifier);
  if (found) {
    clear_ended(r.observables, found->first);
    r.verdict_by = VerdictBy::Witness;
    r.verdict_witness = Outcome{std::move(found->first), seek_sat, std::move(found->second)};
    r.observation = Observation::Sometimes;
  } else {
    r.verdict_by = how;
    r.verdict_witness.reset();
    r.observation = seek_sat ? Observation::Never : Observation::Always;
  }
  // exists: a satisfying outcome; ~exists: none; forall: no violating one.
  r.holds = test.quantifier == Quantifier::NotExists ? !found.has_value()
            : seek_sat                               ? found.has_value()
                                                     : !found.has_value();
}

void reduce_to_verdict(TestResult& r, const LitmusTest& test) {
  std::optional<std::pair<std::vector<std::uint64_t>, Witness>> found;
  for (Outcome& o : r.outcomes)
    if (o.satisfies == seeks_satisfying(test.quantifier)) {
      found.emplace(std::move(o.values), std::move(o.witness));
      break;
    }
  settle_verdict(r, test, std::move(found), VerdictBy::Listing);
}

}  // namespace redscope
