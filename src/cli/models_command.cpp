// `redscope models`: the built-in models, or what model files define,
// read and check (docs/cli.md "models").
#include "cli/models_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "redscope/core/cli_args.hpp"
#include "redscope/core/input.hpp"
#include "redscope/model/cat.hpp"
#include "redscope/model/herd/ast.hpp"
#include "redscope/model/herd/interp.hpp"
#include "redscope/model/herd_subset.hpp"
#include "redscope/registry/registry.hpp"

namespace redscope::cli {

namespace {

constexpr int kExitOk = 0, kExitUsage = 2;

int list_builtin() {
  auto row = [](const BuiltinModel& m) {
    std::string about(m.about);
    if (const std::size_t at = about.find("{title}"); at != std::string::npos)
      about.replace(at, 7, cat::builtin_model(m).title);
    fmt::print("{:<9} {}\n", m.name, about);
  };
  // The model table's rows, then the models of dialects that are their own
  // semantics (no cat file).
  for (const BuiltinModel& m : kBuiltinModels) row(m);
  for (const Dialect& d : dialects())
    if (d.default_model && d.default_model->file.empty()) row(*d.default_model);
  fmt::print(
      "--model picks one (default: from each test's Target) or takes your own file,\n"
      "--model FILE.cat. The z3 and enum engines, explain, atomicity, xval and report\n"
      "all evaluate the model file; the operational machine (--engine op, and xval's\n"
      "other side) is hand-written and reads none (docs/model.md). `redscope models\n"
      "FILE.cat` tells what a file defines, needs and checks.\n");
  return kExitOk;
}

std::string joined(const std::vector<std::string>& names) {
  return names.empty() ? "(none)" : fmt::format("{}", fmt::join(names, ", "));
}

// Marks the slots `e` reads (trees are at most kMaxNesting high).
void mark_reads(const cat::Expr& e, std::vector<char>& read) {
  if (e.op == cat::Op::Ref) read[e.slot] = 1;
  for (const auto& a : e.args) mark_reads(*a, read);
}

// The interface of a model in the typed subset: its bindings, the
// primitives it reads, its checks and its variants.
cat::herd::Interface typed_interface(const cat::Model& m) {
  cat::herd::Interface i;
  std::vector<char> read(m.slots.size(), 0);
  for (const cat::Stmt& st : m.stmts) {
    if (st.let) {
      for (std::size_t s : st.let->slots) i.defines.push_back(m.slots[s].name);
      for (const auto& e : st.let->exprs) mark_reads(*e, read);
    }
    if (st.check) {
      mark_reads(*st.check->expr, read);
      if (!st.check->name.empty()) (st.check->flag ? i.flags : i.checks).push_back(st.check->name);
    }
  }
  for (std::size_t s = 0; s < m.slots.size(); ++s)
    if (m.slots[s].primitive && read[s]) i.needs.push_back(m.slots[s].name);
  return i;
}

void describe(const std::string& path, const cat::Model& m) {
  fmt::print("{}: \"{}\"\n", path, m.title);
  cat::herd::Interface i;
  if (m.typed()) {
    fmt::print("  language: redscope's typed subset (every engine encodes it)\n");
    i = typed_interface(m);
  } else {
    fmt::print(
        "  language: herd7's cat, run by herd's interpreter on each candidate of the\n"
        "            enumerator{}\n",
        m.beyond.empty() ? "" : "; beyond the subset: " + m.beyond);
    std::vector<std::string> bound = cat::herd::interface_of(*cat::herd_prelude(), {}).defines;
    i = cat::herd::interface_of(*m.herd, bound);
  }
  fmt::print("  defines: {}\n  reads from the engine: {}\n", joined(i.defines), joined(i.needs));
  if (!m.typed()) {
    std::vector<std::string> missing;
    for (const std::string& n : i.needs)
      if (!cat::herd::execution_binds(n)) missing.push_back(n);
    if (!missing.empty())
      fmt::print("  missing (no PTX execution binds them; reading one is an error): {}\n",
                 joined(missing));
  }
  fmt::print("  checks: {}\n  flags: {}\n", joined(i.checks), joined(i.flags));
  if (!i.variants.empty()) fmt::print("  variants: {}\n", joined(i.variants));
}

[[noreturn]] void usage(const std::string& msg) {
  fmt::print(stderr, "redscope: {}\nTry 'redscope --help'.\n", msg);
  std::exit(kExitUsage);
}

}  // namespace

std::vector<std::string> cat_include_dirs(const std::vector<std::string>& from_cli) {
  std::vector<std::string> dirs = from_cli;
  if (const char* env = std::getenv("REDSCOPE_CATPATH")) {
    std::string_view rest = env;
    while (!rest.empty()) {
      const std::size_t colon = rest.find(':');
      const std::string_view dir = rest.substr(0, colon);
      if (!dir.empty()) dirs.emplace_back(dir);
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  return dirs;
}

int run_models(int argc, char** argv) {
  std::vector<std::string> files, dirs;
  std::size_t max_bytes = kDefaultMaxInputBytes;
  for (int k = 2; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "-I" || a == "--max-file-size") {
      if (k + 1 >= argc) usage(fmt::format("{} needs a value", a));
      const std::string v = argv[++k];
      if (a == "-I") {
        dirs.push_back(v);
      } else {
        const auto mb = parse_whole(v, kMaxFileSizeMinMb, kMaxFileSizeMaxMb);
        if (!mb)
          usage(fmt::format("--max-file-size takes a whole number from {} to {}, not '{}'",
                            kMaxFileSizeMinMb, kMaxFileSizeMaxMb, printable(v)));
        max_bytes = static_cast<std::size_t>(*mb) << 20;
      }
    } else if (a.rfind("-I", 0) == 0 && a.size() > 2) {
      dirs.push_back(a.substr(2));
    } else if (!a.empty() && a[0] == '-') {
      usage(fmt::format("models takes -I DIR, --max-file-size MB and cat files, not '{}'",
                        printable(a)));
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) return list_builtin();
  dirs = cat_include_dirs(dirs);
  for (const std::string& f : files) {
    try {
      describe(f, cat::load_cat(f, max_bytes, dirs));
    } catch (const InputError& e) {
      // A part of a model (ppc-checks.cat reads `strong`, which the file
      // including it binds): herd7's reading describes what it needs.
      try {
        describe(f, cat::load_cat(f, max_bytes, dirs, cat::Reading::Herd));
        fmt::print("  as a model of its own, it stops: {}\n", e.what());
      } catch (const InputError&) {
        fmt::print(stderr, "{}\n", e.what());
        return kExitUsage;
      }
    }
  }
  return kExitOk;
}

}  // namespace redscope::cli
