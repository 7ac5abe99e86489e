// The CUDA dialect (docs/cuda.md): a CUDA litmus test read as written,
// compiled by nvcc, and each thread's kernel read back as PTX
// instructions; from there it is a PTX test like any other.
#include <fmt/format.h>

#include <map>

#include "redscope/core/model.hpp"
#include "redscope/dialects/cuda/compile.hpp"
#include "redscope/frontend/c/c_source.hpp"
#include "redscope/frontend/container.hpp"
#include "redscope/frontend/frontend.hpp"
#include "redscope/frontend/text_cursor.hpp"

namespace redscope::cuda {

namespace {

// What the kernel convention says of thread i's kernel (as test 0).
EntryPlan plan_of(const CudaSource& src, std::size_t i) {
  EntryPlan p;
  p.entry = src.threads[i].name;  // the cached part names kernels as threads
  for (const CudaLocation& l : src.locations) {
    if (l.shared)
      p.shared.emplace_back(shared_symbol(0, l.name), l.name);
    else
      p.params.push_back(l.name);
  }
  p.observed = src.threads[i].observed;
  p.line_file = std::string(kLineFile);
  return p;
}

// Each CTA has its own copy of a __shared__ variable (CUDA C++ Programming
// Guide, "__shared__": "Resides in the shared memory space of a thread
// block"): one location of a test is one memory cell, so the threads that
// use one must be of one CTA.
void check_shared_use(const LitmusTest& t, const CudaSource& src) {
  for (const CudaLocation& l : src.locations) {
    if (!l.shared) continue;
    const ThreadCode* first = nullptr;
    for (const ThreadCode& tc : t.threads)
      for (const Instruction& in : tc.code) {
        if (!in.addr || in.addr->name != l.name) continue;
        if (!first) first = &tc;
        if (first->place.cta != tc.place.cta || first->place.gpu != tc.place.gpu)
          throw InputError(Diagnostic{
              t.file, in.loc,
              fmt::format("__shared__ '{}' is used by {} (cta {}) and {} (cta {}): each CTA has "
                          "its own copy; use it from one CTA, or make it a global location",
                          l.name, first->name, first->place.cta, tc.name, tc.place.cta)});
      }
  }
}

// The text of `.entry NAME(` to the `}` that closes it, as nvcc wrote it.
std::string entry_text(const std::string& module, const std::string& name) {
  const std::size_t at = module.find(".entry " + name + "(");
  if (at == std::string::npos) return {};
  const std::size_t line = module.rfind('\n', at);
  const std::size_t start = line == std::string::npos ? 0 : line + 1;
  const std::size_t end = module.find("\n}", at);
  return module.substr(start, end == std::string::npos ? std::string::npos : end + 3 - start);
}

// What answers call an instruction (witnesses, explain, atomicity): its
// PTX operation, the location it accesses by the test's name, and the line
// of the test's C++ it came from; never nvcc's registers (issue 44 item 4).
void name_for_users(ThreadCode& tc) {
  for (Instruction& in : tc.code) {
    if (in.kind == InstrKind::Label) continue;
    const std::string op = in.text.substr(0, in.text.find_first_of(" \t"));
    std::string where;
    if (in.addr)
      where = in.addr->offset ? fmt::format(" [{}+{}]", in.addr->name, in.addr->offset)
                              : fmt::format(" [{}]", in.addr->name);
    if (in.kind == InstrKind::Local && in.dst && !in.dst->name.starts_with("%"))
      where = " " + in.dst->name;  // an observed local's value, by its name
    in.text = fmt::format("{}{} (line {})", op, where, in.loc.line);
  }
}

// The threads of `src` read from `module`, a PTX module that names each
// thread's kernel as the thread (`.entry P0`) under the kernel convention.
LitmusTest lowered_test(const CudaSource& src, const std::string& module) {
  LitmusTest t = src.skeleton;
  for (std::size_t i = 0; i < src.threads.size(); ++i) {
    ThreadCode tc = lower_compiled_entry(module, plan_of(src, i), t.threads[i], t);
    name_for_users(tc);
    tc.source_text = src.threads[i].body;
    tc.compiled = entry_text(module, src.threads[i].name);
    t.threads[i] = std::move(tc);
  }
  check_shared_use(t, src);
  redscope::detail::check_references(t);
  return t;
}

// How answers call a source-level access or fence: what it does, its order
// and scope as written, the location, and the test's line, as compiled
// instructions are named (`store.release.device [y] (line 13)`, `load.plain
// [x] (line 18)`); other instructions keep their C text.
void name_source_for_users(ThreadCode& tc) {
  for (Instruction& in : tc.code) {
    if (!in.source) continue;
    std::string what = in.kind == InstrKind::Load    ? "load"
                       : in.kind == InstrKind::Store ? "store"
                       : in.kind == InstrKind::Fence ? "fence"
                                                     : std::string(to_string(in.op));
    if (in.kind == InstrKind::Barrier) what = "__syncthreads";
    std::string_view order = to_string(in.source->order);
    if (order.starts_with("memory_order_")) order.remove_prefix(13);
    if (in.source->order == MemOrder::NonAtomic) order = "plain";
    std::string_view scope = to_string(in.source->scope);
    scope.remove_prefix(std::string_view("thread_scope_").size());
    const std::string at = in.addr ? fmt::format(" [{}]", in.addr->name) : "";
    in.text = in.source->order == MemOrder::NonAtomic
                  ? fmt::format("{}.plain{} (line {})", what, at, in.loc.line)
                  : fmt::format("{}.{}.{}{} (line {})", what, order, scope, at, in.loc.line);
  }
}

// The test as its source says (docs/cuda.md "The source side"): each body's
// statements lowered by frontend/c into events carrying the memory_order
// and thread_scope written, never through nvcc; checked under the scoped
// C++ model by default.
LitmusTest source_test(const CudaSource& src) {
  LitmusTest t = src.skeleton;
  csrc::BodyContext ctx{.library = csrc::Library::Libcuxx, .memory = {}, .test = &t};
  for (const CudaLocation& l : src.locations)
    ctx.memory.push_back(csrc::MemoryName{
        .name = l.name, .location = l.name, .type = data_type(l.type), .by_pointer = !l.shared});
  for (std::size_t i = 0; i < src.threads.size(); ++i) {
    ThreadCode tc = t.threads[i];
    tc.code.clear();
    tc.labels.clear();
    csrc::lower_body(src.threads[i].body, src.threads[i].body_at, t.file, ctx, tc);
    name_source_for_users(tc);
    tc.source_text = src.threads[i].body;
    t.threads[i] = std::move(tc);
  }
  check_shared_use(t, src);
  redscope::detail::check_references(t);
  t.default_model = builtin_model_named("scoped-cpp");
  return t;
}

std::vector<LitmusTest> one(LitmusTest t) {
  std::vector<LitmusTest> out;
  out.push_back(std::move(t));
  return out;
}

}  // namespace

namespace {

// The test as written, with the run's --arch override of its target.
CudaSource read_for_run(std::string_view text, const std::string& file) {
  CudaSource src = read_cuda_source(text, file);
  if (const std::optional<int> sm = current_compiler().target_override())
    src.skeleton.target_sm = *sm;
  return src;
}

}  // namespace

std::vector<LitmusTest> read_cuda_litmus(std::string_view text, const std::string& file) {
  const CudaSource src = read_for_run(text, file);
  if (current_compiler().source_level()) return one(source_test(src));
  return one(lowered_test(src, current_compiler().compiled(src).module));
}

std::vector<LitmusTest> read_cuda_as_source(std::string_view text, const std::string& file) {
  return one(source_test(read_cuda_source(text, file)));
}

std::vector<LitmusTest> read_cuda_with_module(std::string_view text, const std::string& file,
                                              const std::string& module) {
  return one(lowered_test(read_for_run(text, file), module));
}

std::optional<std::string> prepare_cuda_files(const std::vector<std::string>& files,
                                              std::size_t max_bytes) {
  if (current_compiler().source_level()) return std::nullopt;  // --source: no nvcc
  if (std::string why = current_compiler().missing(); !why.empty()) return why;
  std::vector<CudaSource> sources;
  for (const std::string& f : files) {
    try {
      const std::string text = read_litmus_source(f, max_bytes);
      if (!first_word_is(text.substr(0, 256), "CUDA")) continue;
      sources.push_back(read_for_run(text, f));
    } catch (const std::exception&) {
      // Its error is reported when the file itself is checked.
    }
  }
  std::vector<const CudaSource*> all;
  for (const CudaSource& s : sources) all.push_back(&s);
  if (!all.empty()) current_compiler().prepare(all);
  return std::nullopt;
}

}  // namespace redscope::cuda
