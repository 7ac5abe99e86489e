#include "redscope/core/failure.hpp"

#include <exception>

#include <fmt/format.h>

#include "redscope/core/budget.hpp"
#include "redscope/core/diagnostic.hpp"

namespace redscope {

std::string render_failure_text(const std::string& file, const std::string& message,
                                const std::string& kind) {
  const bool budget = kind == "timeout" || kind == "memory";
  return fmt::format("Test {} Error{}\n{}\n\n", file, budget ? fmt::format(" ({})", kind) : "",
                     message);
}

std::optional<TestFailure> capture_failure(const std::string& path,
                                           const std::function<void()>& body) {
  try {
    body();
    return std::nullopt;
  } catch (const InputError& e) {
    return TestFailure{e.diagnostic().render(), "input"};
  } catch (const BudgetExceeded& e) {
    return TestFailure{fmt::format("{}: error: {}", path, e.what()),
                       std::string(to_string(e.kind()))};
  } catch (const SolverError& e) {
    return TestFailure{fmt::format("{}: error: internal solver error: {}", path, e.what()),
                       "internal"};
  } catch (const std::exception& e) {
    return TestFailure{fmt::format("{}: error: internal error: {}", path, e.what()), "internal"};
  }
}

}  // namespace redscope
