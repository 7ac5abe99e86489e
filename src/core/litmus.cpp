// The vocabulary of a parsed test (litmus.hpp) as text.
#include "redscope/core/litmus.hpp"
#include "redscope/core/model.hpp"

namespace redscope {

std::string_view to_string(Quantifier q) {
  switch (q) {
    case Quantifier::Exists: return "exists";
    case Quantifier::Forall: return "forall";
    case Quantifier::NotExists: return "~exists";
    case Quantifier::Permit: return "permit";
    case Quantifier::Assert: return "assert";
    case Quantifier::Check: return "check";
  }
  return "?";
}

std::string_view to_string(RmwOp op) {
  switch (op) {
    case RmwOp::Add: return "add";
    case RmwOp::Sub: return "sub";
    case RmwOp::Mul: return "mul";
    case RmwOp::Div: return "div";
    case RmwOp::And: return "and";
    case RmwOp::Or: return "or";
    case RmwOp::Xor: return "xor";
    case RmwOp::Inc: return "inc";
    case RmwOp::Dec: return "dec";
    case RmwOp::Min: return "min";
    case RmwOp::Max: return "max";
    case RmwOp::Exch: return "exch";
    case RmwOp::Cas: return "cas";
    case RmwOp::AddUnless: return "add_unless";
    case RmwOp::Mov: return "mov";
  }
  return "?";
}

std::string_view to_string(CmpOp c) {
  switch (c) {
    case CmpOp::Eq: return "==";
    case CmpOp::Ne: return "!=";
    case CmpOp::Lt: return "<";
    case CmpOp::Le: return "<=";
    case CmpOp::Gt: return ">";
    case CmpOp::Ge: return ">=";
  }
  return "?";
}

std::optional<SourceLoc> first_proxy_use(const LitmusTest& t) {
  if (!t.aliases.empty()) return t.aliases.front().loc;
  for (const ThreadCode& tc : t.threads)
    for (const Instruction& in : tc.code)
      if (in.kind == InstrKind::ProxyFence || in.proxy != Proxy::Generic) return in.loc;
  return std::nullopt;
}

std::string replica_name(const std::string& range, int gpu) {
  return range + "_gpu" + std::to_string(gpu);
}

ModelRef model_for_test(const LitmusTest& test) {
  return test.default_model ? test.default_model : model_for_target(test.target_sm);
}

}  // namespace redscope
