// CUDA C++ litmus tests (issue 44, docs/cuda.md): the reader of the source
// as written ([cuda]: no compiler), the kernel convention, and nvcc behind
// the Compiler ([cuda][nvcc]: skipped with a message without nvcc).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "redscope/dialects/cuda/compile.hpp"
#include "redscope/dialects/cuda/cuda.hpp"

// This file's own names (the unit tests compile in batches).
namespace unit_cuda_source {

using namespace redscope;
using namespace redscope::cuda;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// The issue's own example (issue 44 item 1).
constexpr std::string_view kMP = R"(CUDA MP+rel-acq.dev
"release/acquire at device scope between two CTAs: forbidden"
{ int x = 0; int y = 0; }
P0@cta 0,gpu 0 {
  *x = 1;
  cuda::atomic_ref<int, cuda::thread_scope_device>(*y).store(1, cuda::std::memory_order_release);
}
P1@cta 1,gpu 0 {
  int r0 = cuda::atomic_ref<int, cuda::thread_scope_device>(*y).load(cuda::std::memory_order_acquire);
  int r1 = *x;
}
exists (P1:r0 == 1 /\ P1:r1 == 0)
)";

std::string error_of(std::string_view text) {
  try {
    read_cuda_source(text, "t.litmus");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// kMP with thread P0's body replaced.
std::string with_body(std::string_view body) {
  return fmt::format("CUDA T\n{{ int x = 0; }}\nP0@cta 0,gpu 0 {{\n{}\n}}\nexists (x == 1)\n",
                     body);
}

}  // namespace

TEST_CASE("a CUDA test is read as written", "[cuda]") {
  const CudaSource s = read_cuda_source(kMP, "MP.litmus");
  CHECK(s.skeleton.arch == "CUDA");
  CHECK(s.skeleton.name == "MP+rel-acq.dev");
  CHECK(s.skeleton.target_sm == 90);
  REQUIRE(s.locations.size() == 2);
  CHECK(s.locations[1].name == "y");
  CHECK_FALSE(s.locations[1].shared);
  REQUIRE(s.skeleton.init.size() == 2);
  CHECK(s.skeleton.init[0].space == Space::Global);
  CHECK(s.skeleton.init[0].type == DataType::S32);
  REQUIRE(s.threads.size() == 2);
  CHECK(s.threads[1].place.cta == 1);
  CHECK(s.threads[1].body_at.line == 8);
  CHECK(s.threads[1].body_at.col == 17);
  REQUIRE(s.threads[1].observed.size() == 2);
  CHECK(s.threads[1].observed[0].name == "r0");
  CHECK(s.threads[1].observed[1].name == "r1");
  CHECK(s.threads[0].observed.empty());
  CHECK(s.skeleton.condition.kind == CondExpr::Kind::And);
}

TEST_CASE("CUDA init blocks: C types, __shared__, herd's parameter lists", "[cuda]") {
  const CudaSource s = read_cuda_source(R"(CUDA T
Target=sm_80
{ unsigned long long a = 5; __shared__ float s; double d = -1.5; x = 2; }
P0(unsigned long long *a, double *d) { long long r = 1; s = 1.0f; }
P1@cta 0,gpu 0 { unsigned int q = 0, r2 = 3; }
exists (P0:r == 1 /\ P1:r2 == 3 /\ a == 5)
)",
                                        "t.litmus");
  CHECK(s.skeleton.target_sm == 80);
  REQUIRE(s.locations.size() == 4);
  CHECK(s.locations[0].type == CType::ULongLong);
  CHECK(s.locations[1].shared);
  CHECK(s.locations[1].type == CType::Float);
  CHECK(s.locations[2].value.text == "-1.5");
  CHECK(s.locations[3].type == CType::Int);  // herd's untyped `x = 2`
  CHECK(s.skeleton.init[1].space == Space::SharedCta);
  REQUIRE(s.threads[0].observed.size() == 1);
  CHECK(s.threads[0].observed[0].type == CType::LongLong);
  REQUIRE(s.threads[1].observed.size() == 1);
  CHECK(s.threads[1].observed[0].type == CType::Unsigned);  // `int a, r2` declares both
}

TEST_CASE("CUDA tests: bad input is a located error", "[cuda]") {
  CHECK_THAT(error_of("CUDA T\nTarget=sm_70\n{ int x; }\nP0 { }\nexists (x == 0)\n"),
             Contains("t.litmus:2:8: error: nvcc 13 compiles for sm_75 and later"));
  CHECK_THAT(error_of("CUDA T\n{ char x; }\nP0 { }\nexists (x == 0)\n"),
             Contains("t.litmus:2:3: error: unknown type 'char'"));
  CHECK_THAT(error_of("CUDA T\n{ int x; int x; }\nP0 { }\nexists (x == 0)\n"),
             Contains("t.litmus:2:14: error: 'x' is declared twice"));
  CHECK_THAT(error_of("CUDA T\n{ int __out; }\nP0 { }\nexists (x == 0)\n"), Contains("reserved"));
  CHECK_THAT(error_of("CUDA T\n{ int x; }\nP1 { }\nexists (x == 0)\n"),
             Contains("t.litmus:3:1: error: expected thread 'P0' here, found 'P1'"));
  CHECK_THAT(error_of("CUDA T\n{ int x; }\nP0 { *x = 1;\nexists (x == 0)\n"),
             Contains("t.litmus:3:5: error: this body has no closing '}'"));
  CHECK_THAT(error_of("CUDA T\n{ int x; }\nP0 { if (1) { int r0 = 1; } }\nexists (P0:r0 == 1)\n"),
             Contains("t.litmus:4:9: error: P0:r0: 'r0' is not a local declared at the top level"));
  CHECK_THAT(error_of("CUDA T\n{ int x; }\nP0 { auto r0 = 1; }\nexists (P0:r0 == 1)\n"),
             Contains("t.litmus:3:11: error: the observed local 'r0' needs one of the types"));
  CHECK_THAT(error_of("CUDA T\n{ int x; }\nP0 { }\nexists (y == 1)\n"),
             Contains("t.litmus:4:9: error: location 'y' is not declared"));
  CHECK_THAT(error_of("CUDA T\n{ int x; }\nP0(int *q) { }\nexists (x == 1)\n"),
             Contains("t.litmus:3:9: error: parameter 'q' is not a global location"));
  CHECK_THAT(error_of("CUDA T\nTarget=sm_80\n{ int x; }\nP0@cta 0,cluster 1,gpu 0 { }\n"
                      "exists (x == 1)\n"),
             Contains("clusters of several CTAs need sm_90"));
}

TEST_CASE("a CUDA body cannot leave its kernel", "[cuda]") {
  // Each is refused at its token: file:line:col in the test.
  CHECK_THAT(error_of(with_body("#include <cstdio>")),
             Contains("t.litmus:4:1: error: preprocessor"));
  CHECK_THAT(error_of(with_body("  %:define X")), Contains("t.litmus:4:3: error: preprocessor"));
  CHECK_THAT(error_of(with_body("*x = 1; } extern \"C\" void f() {")),
             Contains("t.litmus:4:11: error: expected"));
  CHECK_THAT(error_of(with_body("asm(\"trap;\");")), Contains("t.litmus:4:1: error: 'asm'"));
  CHECK_THAT(error_of(with_body("_Pragma(\"x\")")), Contains("'_Pragma' is not allowed"));
  CHECK_THAT(error_of(with_body("return;")), Contains("observed locals"));
  CHECK_THAT(error_of(with_body("*__out = 1;")), Contains("t.litmus:4:2: error: '__out'"));
  CHECK_THAT(error_of(with_body("redscope_t0_P0(x, x);")), Contains("kernels' own"));
  CHECK_THAT(error_of(with_body("<% %>")), Contains("t.litmus:4:1: error: the digraph '<%'"));
  CHECK_THAT(error_of(with_body("const char *s = R\"(})\";")),
             Contains("raw string literals are not allowed"));
  CHECK_THAT(error_of(with_body("int a = 1; \\\n int b;")),
             Contains("t.litmus:4:12: error: a backslash"));
  // Braces inside comments, strings and characters do not count.
  CHECK(error_of(with_body("/* } */ // }\nconst char *s = \"}\"; char c = '}'; int n = 1'000;")) ==
        "no error");
}

TEST_CASE("the kernel convention", "[cuda]") {
  CHECK(entry_name(3, "P1") == "redscope_t3_P1");
  CHECK(shared_symbol(3, "s") == "_ZN11redscope_t31sE");
  CHECK(shared_symbol(12, "buf") == "_ZN12redscope_t123bufE");
  const CudaSource s = read_cuda_source(kMP, "MP.litmus");
  const std::string k = kernel_source(s, 7, "f.litmus");
  CHECK_THAT(k, Contains("namespace redscope_t7 {"));
  CHECK_THAT(k,
             Contains("extern \"C\" __global__ void redscope_t7_P1(int *x, int *y, int *__out)"));
  // The body at its own line and column: #line, then 16 columns of padding.
  CHECK_THAT(k, Contains("#line 8 \"f.litmus\"\n                \n  int r0"));
  CHECK_THAT(k, Contains("*(decltype(__v) *)((char *)__out + 8) = __v;"));
}

namespace {

// A compiler's options: its cache folder ("": no cache) and nvcc (null: the
// usual search); the rest as CompilerOptions has them.
CompilerOptions options(const std::string& cache_dir, const char* nvcc = nullptr) {
  CompilerOptions o;
  o.cache_dir = cache_dir;
  o.use_cache = !cache_dir.empty();
  if (nvcc) o.nvcc = nvcc;
  return o;
}

// A compiler with its own cache folder, removed at the end.
struct TestCompiler {
  fs::path dir = fs::temp_directory_path() / fmt::format("redscope-cuda-test-{}", getpid());
  Compiler compiler{[this] {
    CompilerOptions o = options(dir.string());
    o.seconds = 120;
    return o;
  }()};
  ~TestCompiler() { fs::remove_all(dir); }
};

bool have_nvcc() {
  Compiler c{options("")};
  return !c.nvcc_path().empty();
}

}  // namespace

TEST_CASE("nvcc compiles a CUDA test; its errors are located; the cache is checked",
          "[cuda][nvcc]") {
  if (!have_nvcc()) {
    WARN("SKIP: no nvcc ($CUDA_HOME/bin, PATH): the compiler's tests are skipped");
    return;
  }
  TestCompiler tc;
  const CudaSource mp = read_cuda_source(kMP, "MP.litmus");
  const CudaSource bad = read_cuda_source(with_body("  *x = foo;"), "bad.litmus");
  // One batch: the bad test's error is its own, the good one still compiles.
  tc.compiler.prepare({&mp, &bad});
  const CompiledTest c = tc.compiler.compiled(mp);
  CHECK_FALSE(c.from_cache);
  CHECK_THAT(c.module, Contains(".entry P1("));  // the threads' own names
  CHECK_THAT(c.module, Contains("ld.acquire.gpu"));
  try {
    tc.compiler.compiled(bad);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()),
               Contains("bad.litmus:4:8: error: nvcc: identifier \"foo\" is undefined"));
  }
  // A new compiler finds it in the cache; a damaged entry is compiled again.
  Compiler again{options(tc.dir.string())};
  CHECK(again.compiled(mp).from_cache);
  for (const auto& e : fs::directory_iterator(tc.dir)) {
    std::string text;
    {
      std::ifstream in(e.path());
      text.assign(std::istreambuf_iterator<char>(in), {});
    }
    text[text.size() / 2] ^= 1;
    std::ofstream(e.path()) << text;
  }
  Compiler third{options(tc.dir.string())};
  const CompiledTest fresh = third.compiled(mp);
  CHECK_FALSE(fresh.from_cache);
  CHECK(fresh.module == c.module);
  // Without nvcc, only a precompiled folder is read (the playground's).
  Compiler no_nvcc{options(tc.dir.string(), "/nonexistent/nvcc")};
  CHECK_THROWS_WITH(no_nvcc.compiled(mp), Contains("is not an nvcc that runs"));
  CompilerOptions ahead = options(tc.dir.string(), "/nonexistent/nvcc");
  ahead.precompiled = true;
  ahead.precompiled_missing = "not shipped";
  Compiler shipped{ahead};
  CHECK(shipped.compiled(mp).module == c.module);
  const CudaSource other = read_cuda_source(with_body("  *x = 2;"), "other.litmus");
  CHECK_THROWS_WITH(shipped.compiled(other), Contains("not shipped"));
}

TEST_CASE("without nvcc, a CUDA test says so", "[cuda]") {
  Compiler none{options("", "/nonexistent/nvcc")};
  const CudaSource mp = read_cuda_source(kMP, "MP.litmus");
  try {
    none.compiled(mp);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Contains("'/nonexistent/nvcc' is not an nvcc that runs"));
  }
}

}  // namespace unit_cuda_source
