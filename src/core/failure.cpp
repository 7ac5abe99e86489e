#include "redscope/core/failure.hpp"

#include <exception>
#include <new>

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

namespace {

// A failure of the whole file (no line): "FILE: error: TEXT".
TestFailure whole_file(const std::string& path, std::string text, std::string kind) {
  return TestFailure{fmt::format("{}: error: {}", path, text), std::move(kind),
                     Diagnostic{path, {0, 0}, std::move(text)}};
}

}  // namespace

std::optional<TestFailure> capture_failure(const std::string& path,
                                           const std::function<void()>& body) {
  try {
    body();
    return std::nullopt;
  } catch (const InputError& e) {
    return TestFailure{e.diagnostic().render(), "input", e.diagnostic()};
  } catch (const BudgetExceeded& e) {
    return whole_file(path, e.what(), std::string(to_string(e.kind())));
  } catch (const std::bad_alloc&) {  // the allocator's refusal: memory, not a defect
    return whole_file(path, std::string(kOutOfMemory), "memory");
  } catch (const SolverError& e) {
    return whole_file(path, fmt::format("internal solver error: {}", e.what()), "internal");
  } catch (const std::exception& e) {
    return whole_file(path, fmt::format("internal error: {}", e.what()), "internal");
  }
}

}  // namespace redscope
