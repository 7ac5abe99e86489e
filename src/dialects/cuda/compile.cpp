// The nvcc driver (dialects/cuda/compile.hpp): one translation unit and one
// call per target for a batch of tests, errors traced back to their test,
// and a cache of each test's part of the module.
#include "redscope/dialects/cuda/compile.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "redscope/core/budget.hpp"
#include "redscope/core/output.hpp"
#include "redscope/core/subprocess.hpp"

namespace fs = std::filesystem;

namespace redscope::cuda {

namespace {

constexpr std::size_t kMaxModuleBytes = std::size_t{64} << 20;  // nvcc's PTX, read within this
constexpr std::string_view kCacheMagic = "// redscope-cuda-ptx 3";

std::string line_file(std::size_t k) { return fmt::format("redscope_t{}.litmus", k); }

// Two FNV-1a hashes with different offsets: 128 bits of key.
std::string hash_hex(std::string_view s) {
  std::uint64_t a = 14695981039346656037ull, b = 0x9ae16a3b2f90404full;
  for (unsigned char ch : s) {
    a = (a ^ ch) * 1099511628211ull;
    b = (b ^ ch) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
  }
  return fmt::format("{:016x}{:016x}", a, b);
}

// ---- nvcc's messages --------------------------------------------------------

struct NvccError {
  std::size_t test = 0;
  Diagnostic diag;
};

// `redscope_tK.litmus(LINE): error: MESSAGE`, then the source line and a
// caret line (nvcc indents the source by two columns). Errors inside a
// header name the test's line in "... at line N of redscope_tK.litmus".
std::vector<NvccError> parse_errors(const std::string& out,
                                    const std::vector<const CudaSource*>& tests) {
  static const std::regex own(
      R"(^redscope_t(\d+)\.litmus\((\d+)\): (?:catastrophic )?error[^:]*: (.*)$)");
  static const std::regex other(R"(^.*\(\d+\): (?:catastrophic )?error[^:]*: (.*)$)");
  static const std::regex via(R"(line (\d+) of redscope_t(\d+)\.litmus)");
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= out.size(); ++i)
    if (i == out.size() || out[i] == '\n') {
      lines.push_back(out.substr(start, i - start));
      start = i + 1;
    }
  std::vector<NvccError> errors;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    std::size_t k = 0;
    int line = 0, col = 0;
    std::string msg;
    if (std::regex_match(lines[i], m, own)) {
      k = std::stoul(m[1]);
      line = std::stoi(m[2]);
      msg = m[3];
      if (i + 2 < lines.size() && lines[i + 2].find('^') != std::string::npos)
        col = std::max(1, static_cast<int>(lines[i + 2].find('^')) - 1);
    } else if (std::regex_match(lines[i], m, other)) {
      msg = m[1];
      bool found = false;
      for (std::size_t j = i + 1; j < lines.size() && !found; ++j) {
        if (std::regex_match(lines[j], other)) break;
        std::smatch v;
        if (std::regex_search(lines[j], v, via)) {
          line = std::stoi(v[1]);
          k = std::stoul(v[2]);
          found = true;
        }
      }
      if (!found) continue;
    } else {
      continue;
    }
    if (k >= tests.size()) continue;
    errors.push_back(NvccError{
        k,
        Diagnostic{tests[k]->skeleton.file, {line, col}, fmt::format("nvcc: {}", printable(msg))}});
  }
  return errors;
}

// ---- slicing the module -----------------------------------------------------

// Test k's part of nvcc's module, renamed as test 0: the header lines, its
// shared variables, its kernels and the `.file` table.
std::string slice_of(const std::string& module, std::size_t k, const CudaSource& test) {
  const std::string entry_prefix = entry_name(k, "");
  std::string out;
  std::istringstream in(module);
  std::string line;
  bool in_entry = false;
  while (std::getline(in, line)) {
    if (in_entry) {
      out += line + "\n";
      if (line == "}") in_entry = false;
      continue;
    }
    const bool head = line.starts_with(".version") || line.starts_with(".target") ||
                      line.starts_with(".address_size");
    const bool file =
        line.find(".file") != std::string::npos && line.find('"') != std::string::npos;
    bool shared = false;
    for (const CudaLocation& l : test.locations)
      if (l.shared && line.find(shared_symbol(k, l.name) + ";") != std::string::npos &&
          line.find(".shared") != std::string::npos)
        shared = true;
    if (line.find(".entry " + entry_prefix) != std::string::npos) {
      in_entry = true;
      out += line + "\n";
    } else if (head || file || shared) {
      out += line + "\n";
    }
  }
  // Rename test k's kernels to the threads' own names (`.entry P0`, the
  // convention of a module given whole, docs/cuda.md) and its shared
  // variables to test 0's (whole names: t1_ is no prefix of t12_).
  auto replace_all = [&](const std::string& from, const std::string& to) {
    if (from == to) return;
    for (std::size_t p = out.find(from); p != std::string::npos; p = out.find(from, p + to.size()))
      out.replace(p, from.size(), to);
  };
  replace_all(entry_prefix, "");
  for (const CudaLocation& l : test.locations)
    if (l.shared) replace_all(shared_symbol(k, l.name), shared_symbol(0, l.name));
  replace_all(line_file(k), line_file(0));
  // nvcc writes the `#line` file as a path from its working folder: keep the name alone.
  std::string named;
  std::istringstream lines(out);
  while (std::getline(lines, line)) {
    const std::size_t q = line.find('"'), end = line.rfind('"');
    // and the translation unit's own path (in a scratch folder) as its name alone.
    for (const std::string& name : {line_file(0), std::string("tests.cu")})
      if (line.find(".file") != std::string::npos && q != end &&
          line.substr(q + 1, end - q - 1).ends_with("/" + name))
        line = line.substr(0, q + 1) + name + line.substr(end);
    named += line + "\n";
  }
  return named;
}

}  // namespace

std::vector<std::string> nvcc_flags(int target_sm) {
  return {"-ptx", "-rdc=true", fmt::format("-arch=sm_{}", target_sm), "-lineinfo", "-w"};
}

Compiler::Compiler(CompilerOptions options) : options_(std::move(options)) {
  if (options_.cache_dir.empty()) {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    if (xdg && *xdg)
      options_.cache_dir = std::string(xdg) + "/redscope/cuda";
    else if (home && *home)
      options_.cache_dir = std::string(home) + "/.cache/redscope/cuda";
    else
      options_.use_cache = false;
  }
}

const Compiler::Tool& Compiler::tool() {
  if (tool_) return *tool_;
  Tool t;
  std::vector<std::string> candidates;
  if (options_.nvcc) {
    if (options_.nvcc->find('/') == std::string::npos) {
      candidates = on_path(*options_.nvcc);  // a bare name, as a shell finds it
    } else {
      candidates.push_back(*options_.nvcc);
    }
  } else {
    if (const char* home = std::getenv("CUDA_HOME"); home && *home)
      candidates.push_back(std::string(home) + "/bin/nvcc");
    for (std::string& p : on_path("nvcc")) candidates.push_back(std::move(p));
    candidates.push_back("/usr/local/cuda/bin/nvcc");
  }
  ScratchDir scratch("redscope-nvcc");
  for (const std::string& c : candidates) {
    if (access(c.c_str(), X_OK) != 0 || fs::is_directory(c) || !scratch.ok()) continue;
    const ProcessRun v = run_process({c, "--version"}, scratch.dir(), {.seconds = 20});
    if (!v.ok() || v.output.find("Cuda compilation tools") == std::string::npos) continue;
    t.path = c;
    t.version = v.output;
    break;
  }
  if (t.path.empty())
    t.missing = options_.nvcc
                    ? fmt::format("'{}' is not an nvcc that runs (--nvcc)", *options_.nvcc)
                    : "no nvcc in $CUDA_HOME/bin, on PATH or in /usr/local/cuda/bin: CUDA tests "
                      "need NVIDIA's compiler (--nvcc PATH)";
  tool_ = std::move(t);
  return *tool_;
}

std::string Compiler::missing() {
  std::lock_guard lock(mu_);
  return options_.precompiled ? std::string() : tool().missing;
}

std::string Compiler::nvcc_path() {
  std::lock_guard lock(mu_);
  return tool().path;
}

// The key names what nvcc is given (the test's kernels and the flags); the
// nvcc that compiled an entry is written in it and checked on reading.
std::string Compiler::key_of(const CudaSource& test) {
  std::string flags;
  for (const std::string& f : nvcc_flags(test.skeleton.target_sm)) flags += f + " ";
  return hash_hex(flags + "\n" + kernel_source(test, 0, line_file(0)));
}

// A cache entry: the magic line, then `KEY NVCC BYTES SUM` (NVCC the hash of
// `nvcc --version`'s output) and the module, so a truncated, altered or
// misplaced entry, or one another nvcc made, is found and compiled again.
// With no nvcc, only a precompiled folder's entries are read, whatever nvcc
// made them (the playground's, docs/cuda.md).
std::optional<CompiledTest> Compiler::from_disk(const std::string& key) {
  if (!options_.use_cache) return std::nullopt;
  const bool no_nvcc = !tool().missing.empty();
  if (no_nvcc && !options_.precompiled) return std::nullopt;
  std::ifstream in(options_.cache_dir + "/" + key + ".ptx", std::ios::binary);
  std::string magic, k, made_by, sum;
  std::size_t bytes = 0;
  if (!std::getline(in, magic) || magic != kCacheMagic) return std::nullopt;
  if (!(in >> k >> made_by >> bytes >> sum) || k != key || bytes > kMaxModuleBytes)
    return std::nullopt;
  if (!no_nvcc && made_by != hash_hex(tool().version)) return std::nullopt;
  in.get();  // the newline
  std::string module(bytes, '\0');
  in.read(module.data(), static_cast<std::streamsize>(bytes));
  if (static_cast<std::size_t>(in.gcount()) != bytes || in.peek() != EOF) return std::nullopt;
  if (hash_hex(module) != sum) return std::nullopt;
  return CompiledTest{std::move(module), true};
}

void Compiler::to_disk(const std::string& key, const std::string& module) {
  if (!options_.use_cache) return;
  std::error_code ec;
  fs::create_directories(options_.cache_dir, ec);
  try {
    write_file_replacing(
        options_.cache_dir + "/" + key + ".ptx",
        fmt::format("{}\n{} {} {} {}\n{}", kCacheMagic, key, hash_hex(tool().version),
                    module.size(), hash_hex(module), module));
  } catch (const std::exception&) {
    // A cache that cannot be written only costs a compilation next time.
  }
}

namespace {

bool past_ambient_deadline(const void* ctx) {
  const auto* b = static_cast<const Budget*>(ctx);
  return b->limits().seconds > 0 && std::chrono::steady_clock::now() > b->deadline();
}

std::string why_failed(const ProcessRun& r, double seconds, std::size_t memory_mb) {
  if (!r.started) return "nvcc could not be started";
  if (r.timed_out) return fmt::format("nvcc did not finish within {:g} s (--timeout)", seconds);
  if (r.signal) return fmt::format("nvcc was killed by signal {}", r.signal);
  std::string first = r.output.substr(0, r.output.find('\n'));
  if (memory_mb > 0 && (r.output.find("out of memory") != std::string::npos ||
                        r.output.find("std::bad_alloc") != std::string::npos))
    return fmt::format("nvcc ran out of memory under --max-memory {} MB", memory_mb);
  return fmt::format("nvcc failed (exit {}): {}", r.exit_code, printable(first));
}

}  // namespace

void Compiler::compile_batch(std::vector<std::pair<std::string, const CudaSource*>> batch,
                             int target) {
  while (!batch.empty()) {
    ScratchDir scratch("redscope-nvcc");
    if (!scratch.ok()) {
      for (const auto& [key, t] : batch)
        slots_[key].error = Diagnostic{t->skeleton.file, {0, 0}, "no scratch folder for nvcc"};
      return;
    }
    std::vector<const CudaSource*> tests;
    std::string tu = "#include <cuda/atomic>\n";
    for (std::size_t i = 0; i < batch.size(); ++i) {
      tests.push_back(batch[i].second);
      tu += kernel_source(*batch[i].second, i, line_file(i));
    }
    const std::string cu = scratch.dir() + "/tests.cu", ptx = scratch.dir() + "/tests.ptx";
    std::ofstream(cu) << tu;
    std::vector<std::string> argv{tool().path};
    for (const std::string& f : nvcc_flags(target)) argv.push_back(f);
    argv.insert(argv.end(), {"-o", ptx, cu});
    ProcessLimits limits;
    limits.seconds =
        options_.seconds > 0 ? options_.seconds * static_cast<double>(batch.size()) : 0;
    limits.memory_mb = options_.memory_mb;
    if (const Budget* b = ambient_budget()) {
      limits.stop = past_ambient_deadline;
      limits.stop_ctx = b;
    }
    const ProcessRun r = run_process(argv, scratch.dir(), limits);
    if (r.ok()) {
      bool truncated = false;
      std::ifstream in(ptx, std::ios::binary);
      std::string module(kMaxModuleBytes + 1, '\0');
      in.read(module.data(), static_cast<std::streamsize>(module.size()));
      module.resize(static_cast<std::size_t>(in.gcount()));
      truncated = module.size() > kMaxModuleBytes;
      for (std::size_t i = 0; i < batch.size(); ++i) {
        Slot& s = slots_[batch[i].first];
        if (truncated) {
          s.error = Diagnostic{tests[i]->skeleton.file, {0, 0}, "nvcc's PTX is over 64 MiB"};
          continue;
        }
        std::string slice = slice_of(module, i, *tests[i]);
        to_disk(batch[i].first, slice);
        s.ptx = CompiledTest{std::move(slice), false};
      }
      return;
    }
    const std::vector<NvccError> errors = parse_errors(r.output, tests);
    if (errors.empty()) {
      if (batch.size() > 1) {  // the cause is not located: each test alone finds its own
        for (auto& one : batch) compile_batch({one}, target);
        return;
      }
      const CudaSource& t = *batch.front().second;
      slots_[batch.front().first].error =
          Diagnostic{t.skeleton.file, t.threads.front().loc,
                     why_failed(r, limits.seconds, options_.memory_mb)};
      return;
    }
    std::set<std::size_t> failed;
    for (const NvccError& e : errors)
      if (failed.insert(e.test).second) slots_[batch[e.test].first].error = e.diag;
    std::vector<std::pair<std::string, const CudaSource*>> rest;
    for (std::size_t i = 0; i < batch.size(); ++i)
      if (!failed.count(i)) rest.push_back(batch[i]);
    batch = std::move(rest);
  }
}

void Compiler::prepare(const std::vector<const CudaSource*>& tests) {
  std::lock_guard lock(mu_);
  std::map<int, std::vector<std::pair<std::string, const CudaSource*>>> by_target;
  std::set<std::string> queued;
  for (const CudaSource* t : tests) {
    const std::string key = key_of(*t);
    if (slots_.count(key) || !queued.insert(key).second) continue;
    if (std::optional<CompiledTest> c = from_disk(key)) {
      slots_[key].ptx = std::move(c);
      continue;
    }
    if (tool().missing.empty()) by_target[t->skeleton.target_sm].emplace_back(key, t);
  }
  for (auto& [target, batch] : by_target) compile_batch(std::move(batch), target);
}

CompiledTest Compiler::compiled(const CudaSource& test) {
  prepare({&test});
  std::lock_guard lock(mu_);
  const auto s = slots_.find(key_of(test));
  if (s == slots_.end())  // no nvcc, and not precompiled
    throw InputError(
        Diagnostic{test.skeleton.file, test.threads.front().loc,
                   options_.precompiled ? options_.precompiled_missing : tool().missing});
  if (s->second.error) throw InputError(*s->second.error);
  return *s->second.ptx;
}

namespace {

std::shared_ptr<Compiler>& process_compiler() {
  static std::shared_ptr<Compiler> c = std::make_shared<Compiler>(CompilerOptions{});
  return c;
}

}  // namespace

Compiler& current_compiler() { return *process_compiler(); }

void use_compiler(std::shared_ptr<Compiler> compiler) { process_compiler() = std::move(compiler); }

}  // namespace redscope::cuda
