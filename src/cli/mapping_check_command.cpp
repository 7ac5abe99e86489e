// `redscope cuda-check`: each CUDA test's PTX (nvcc's, or a given module)
// against its source (analysis/mapping_check.hpp).
#include "cli/mapping_check_command.hpp"

#include <fmt/format.h>

#include "redscope/analysis/mapping_check.hpp"
#include "redscope/core/budget.hpp"
#include "redscope/core/cli_args.hpp"
#include "redscope/core/input.hpp"
#include "redscope/core/json.hpp"
#include "redscope/driver/engines.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/registry/registry.hpp"

namespace redscope::cli {

namespace {

constexpr int kExitOk = 0, kExitMiscompiled = 1, kExitBad = 2;

[[noreturn]] void usage(const std::string& msg) {
  fmt::print(stderr, "redscope: cuda-check: {}\nTry 'redscope --help'.\n", msg);
  std::exit(kExitBad);
}

// The two readings of one test: as its source says, and as compiled (by
// nvcc, prepared for the whole run, or from the given module).
MappingCheck check_one(const std::string& file, const MappingCheckInput& in,
                       const std::optional<std::string>& module, const EngineOptions& opts) {
  const std::string text = read_litmus_source(file, opts.max_file_bytes);
  const Dialect* d = dialect_for(file, text.substr(0, 4096));
  if (!d || !d->compiled)
    throw InputError(Diagnostic{file,
                                {1, 1},
                                "not a CUDA test: cuda-check compares a compiled test with its "
                                "source (the first word is CUDA)"});
  const LitmusTest source = d->compiled->source(text, file).front();
  const LitmusTest compiled =
      module ? d->compiled->with_output(text, file, *module).front() : d->parse(text, file).front();
  (void)in;
  return with_budget(
      opts, [&](const EngineOptions& o) { return mapping_check(source, compiled, o, run_engine); });
}

}  // namespace

MappingCheckOptions take_mapping_check_options(int argc, char** argv, std::vector<char*>& rest) {
  MappingCheckOptions o;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a != "--ptx" && a != "--arch") {
      rest.push_back(argv[i]);
      continue;
    }
    if (i + 1 >= argc) usage(a + " needs a value");
    const std::string v = argv[++i];
    if (a == "--ptx") {
      if (v.empty()) usage("--ptx needs the path of a PTX module");
      o.ptx = v;
      continue;
    }
    const std::optional<long long> sm =
        v.starts_with("sm_") ? parse_whole(v.substr(3), 75, 1000) : std::nullopt;
    if (!sm)
      usage(
          fmt::format("--arch takes sm_NN with NN 75 or above (nvcc 13), not '{}'", printable(v)));
    o.arch = static_cast<int>(*sm);
  }
  return o;
}

int run_mapping_check(const MappingCheckInput& in, const EngineOptions& opts) {
  std::optional<std::string> module;
  if (in.ptx) {
    try {
      module = read_input(*in.ptx, opts.max_file_bytes, "PTX module");
    } catch (const InputError& e) {
      fmt::print(stderr, "{}\n", e.diagnostic().render());
      return kExitBad;
    }
  }
  int status = kExitOk;
  std::size_t ok = 0, racy = 0, bad = 0, errors = 0;
  Json all = Json::array();
  for (const std::string& file : in.files) {
    try {
      const MappingCheck m = check_one(file, in, module, opts);
      const std::string v = m.verdict();
      (v == "ok" ? ok : v == "racy" ? racy : bad) += 1;
      if (v == "miscompiled" && status == kExitOk) status = kExitMiscompiled;
      if (in.format == "json")
        all.push(json_of(m));
      else if (!in.quiet || v == "miscompiled")
        fmt::print("{}\n", render_text(m));
    } catch (const InputError& e) {
      fmt::print(stderr, "{}\n", e.diagnostic().render());
      ++errors;
      status = kExitBad;
    } catch (const std::exception& e) {
      fmt::print(stderr, "{}: error: {}\n", file, e.what());
      ++errors;
      status = kExitBad;
    }
  }
  if (in.format == "json")
    fmt::print("{}\n", all.dump(Json::Layout::Line));
  else
    fmt::print("cuda-check: {} mapping ok, {} MISCOMPILED, {} racy, {} not checked\n", ok, bad,
               racy, errors);
  return status;
}

}  // namespace redscope::cli
