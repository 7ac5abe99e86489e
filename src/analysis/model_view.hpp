// The model's own relations on one execution of a skeleton, by the names
// the model gives them, and why a pair is or is not in one, in words read
// off the model's definitions (a let-bound name is opened, a union names
// the branch that holds, ...) down to the primitives, which have their own
// words. Works for any model: a user's --model FILE.cat is read the same
// way. Private to src/analysis.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/engine/z3/query.hpp"
#include "redscope/model/cat.hpp"
#include "redscope/model/cat_eval.hpp"

namespace redscope {

class ModelView {
 public:
  // The model on `exec`, or, without one, on the execution of every event
  // with no rf, co, sf or barrier choice: enough for the relations that do
  // not depend on the execution (ms, scopes, po, ...).
  ModelView(const Skeleton& sk, const QueryModel& model, const cat::StaticPrimitives& prims,
            const ChosenExecution* exec, const Budget* budget);

  // The model's value named `name` (its last binding, or the primitive it
  // reads), or none when the model has no such name.
  std::optional<std::size_t> slot(std::string_view name) const;
  bool holds(std::size_t slot, EventId u, EventId v) const;
  bool holds(const cat::Expr& e, EventId u, EventId v) const;
  bool member(const cat::Expr& set, EventId e) const;
  cat::Value eval(const cat::Expr& e) const { return ev_.eval(e); }
  // The definition of a let-bound slot (null for a primitive or `let rec`).
  const cat::Expr* definition(std::size_t slot) const;
  const cat::Model& model() const { return m_; }
  bool variant_on(const std::string& v) const;

  // Why (u, v) is, or is not, in the value of `slot`, in words.
  std::string pair_words(std::size_t slot, EventId u, EventId v) const;
  // Why (u, v) is, or is not, in `e` (an expression of the model).
  std::string why(const cat::Expr& e, EventId u, EventId v) const { return reason(e, u, v, 0); }
  // Why `e` is not in `set`: "P1's st.relaxed.gpu [x], 1 is not in RMW".
  std::string not_member_words(const cat::Expr& set, EventId e) const;

 private:
  std::string reason(const cat::Expr& e, EventId u, EventId v, int depth) const;
  std::string ref_words(std::size_t slot, EventId u, EventId v, int depth) const;
  std::string ev(EventId e) const;

  const Skeleton& sk_;
  const cat::Model& m_;
  std::vector<std::string> variants_;
  cat::Evaluator ev_;
  std::map<std::size_t, const cat::Expr*> bound_;
};

}  // namespace redscope
