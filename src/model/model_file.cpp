// A model file's two readings (cat.hpp parse_model): redscope's typed
// subset, which every engine encodes, and herd7's full language, which
// herd's interpreter runs on each complete candidate.
#include <fmt/format.h>

#include "redscope/model/cat.hpp"
#include "redscope/model/herd/parse.hpp"
#include "redscope/model/herd_subset.hpp"

namespace redscope::cat {

namespace {

// The subset's message for a name it does not know: "unknown name 'fr'".
std::optional<std::string> unknown_name(const InputError& e) {
  const std::string& m = e.diagnostic().message;
  constexpr std::string_view kPrefix = "unknown name '";
  if (m.rfind(kPrefix, 0) != 0) return std::nullopt;
  const std::size_t end = m.find('\'', kPrefix.size());
  if (end == std::string::npos) return std::nullopt;
  return m.substr(kPrefix.size(), end - kPrefix.size());
}

// Whether herd7's reading binds `name` before the model runs: the engine's
// names for a PTX execution, or the prelude's.
bool herd_binds(const std::string& name) {
  if (herd::execution_binds(name)) return true;
  for (const herd::Ins& i : herd_prelude()->body)
    for (const herd::Binding& b : i.bindings)
      for (const auto& n : b.pat.names)
        if (n == name) return true;
  return false;
}

// The error of the reading that got further into the file (the subset's on
// a tie, and when they stop in different files).
const InputError& further(const InputError& subset, const InputError& full) {
  const Diagnostic &a = subset.diagnostic(), &b = full.diagnostic();
  if (a.file != b.file) return subset;
  const bool later = b.loc.line > a.loc.line || (b.loc.line == a.loc.line && b.loc.col > a.loc.col);
  return later ? full : subset;
}

Model herd_model(std::shared_ptr<const herd::Program> p, const std::string& file,
                 std::string beyond) {
  Model m;
  m.file = file;
  m.title = p->title;
  m.herd = std::move(p);
  m.beyond = std::move(beyond);
  return m;
}

}  // namespace

Model parse_model(std::string_view text, const std::string& file, const IncludeReader& include,
                  const std::string& top_key, Reading reading) {
  if (reading == Reading::Herd)
    return herd_model(herd::load_program(text, file, include, top_key), file, {});
  try {
    return parse_cat(text, file, ptx_primitives(), include, top_key);
  } catch (const InputError& subset) {
    std::shared_ptr<const herd::Program> p;
    try {
      p = herd::load_program(text, file, include, top_key);
    } catch (const InputError& full) {
      throw further(subset, full);
    }
    std::string beyond;
    if (const auto b = herd::beyond_subset(*p)) {
      beyond = b->text();
    } else {
      // The subset's syntax, and a name only herd7 binds (`fr`, `FW`, a
      // prelude function): herd's reading. Any other error stands.
      const auto name = unknown_name(subset);
      if (!name || !herd_binds(*name)) throw;
      beyond = fmt::format("'{}', which herd7 binds, at {}:{}:{}", *name, subset.diagnostic().file,
                           subset.diagnostic().loc.line, subset.diagnostic().loc.col);
    }
    return herd_model(std::move(p), file, std::move(beyond));
  }
}

void require_typed(const Model& m, std::string_view what) {
  if (m.typed()) return;
  throw InputError(Diagnostic{
      m.file,
      {},
      fmt::format("{}: needs a model in redscope's typed subset of cat, and this one is in "
                  "herd7's full language ({}); run and xval check it with herd's interpreter "
                  "(docs/model.md \"herd7's cat language\")",
                  what, m.beyond)});
}

}  // namespace redscope::cat
