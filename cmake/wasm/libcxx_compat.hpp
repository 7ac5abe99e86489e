// Force-included into every translation unit of the WebAssembly build
// (cmake/wasm.cmake), and only there: the C++20 library parts that the
// libc++ of Debian's emscripten 3.1.6 lacks, each behind its feature-test
// macro so that a newer emscripten uses its own. std::bit_cast (P0476) is
// the compiler's builtin. std::jthread, std::stop_token and
// condition_variable_any's waits with a stop token (P0660; libc++ 18) follow. The module is built
// without threads (-pthread would need SharedArrayBuffer, so cross-origin isolation headers from
// the server, and the page must load from any static server), so no std::thread can start: what
// this supplies only has to compile and keep the single-threaded behaviour. A jthread given a
// function does not run it. The one such thread a single test with one worker makes is
// with_budget's watchdog (core/budget.hpp), whose deadline and memory cap Budget::check() and
// charge() also enforce on the test's own thread; it exists to interrupt a
// solver, which this build does not have. Thread pools (parallel_for with
// more than one job, the enumerator's LeafPool with workers > 1) are never
// asked for: src/wasm runs one test with workers = 1.
#pragma once

#include <version>

#if defined(__EMSCRIPTEN__) && !defined(__cpp_lib_bit_cast)
#include <type_traits>
namespace std {
template <class To, class From>
constexpr To bit_cast(const From& from) noexcept {
  static_assert(sizeof(To) == sizeof(From) && is_trivially_copyable_v<From>);
  return __builtin_bit_cast(To, from);
}
}  // namespace std
#endif

// Floating-point std::to_chars with a precision and std::from_chars of a
// double (P0067): musl's printf and strtod, which are exact.
#if defined(__EMSCRIPTEN__) && !defined(__cpp_lib_to_chars)
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>
namespace std {
inline to_chars_result to_chars(char* first, char* last, double v, chars_format f, int precision) {
  const char* spec = f == chars_format::scientific ? "%.*e"
                     : f == chars_format::fixed    ? "%.*f"
                                                   : "%.*g";
  const int n = snprintf(first, static_cast<size_t>(last - first), spec, precision, v);
  if (n < 0 || n >= last - first) return {last, errc::value_too_large};
  return {first + n, errc{}};
}
inline from_chars_result from_chars(const char* first, const char* last, double& v) {
  const string s(first, last);  // strtod needs a terminated string
  char* end = nullptr;
  const double d = strtod(s.c_str(), &end);
  if (end == s.c_str()) return {first, errc::invalid_argument};
  v = d;
  return {first + (end - s.c_str()), errc{}};
}
}  // namespace std
#endif

#if defined(__EMSCRIPTEN__) && !defined(__cpp_lib_jthread)

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace std {

class stop_token {
 public:
  stop_token() = default;
  bool stop_requested() const noexcept { return flag_ && *flag_; }
  bool stop_possible() const noexcept { return static_cast<bool>(flag_); }

 private:
  explicit stop_token(shared_ptr<bool> f) : flag_(std::move(f)) {}
  shared_ptr<bool> flag_;
  friend class jthread;
};

class jthread {
 public:
  jthread() noexcept = default;
  template <class F, class... A>
  explicit jthread(F&&, A&&...) : flag_(make_shared<bool>(false)) {}
  jthread(jthread&&) noexcept = default;
  jthread& operator=(jthread&&) noexcept = default;
  bool request_stop() noexcept { return flag_ && !*flag_ && (*flag_ = true); }
  stop_token get_stop_token() const noexcept { return stop_token(flag_); }
  bool joinable() const noexcept { return false; }
  void join() {}

 private:
  shared_ptr<bool> flag_;
};

// condition_variable_any with the waits C++20 added; with one thread, a
// wait returns at once with the predicate's value.
class redscope_condition_variable_any : public condition_variable_any {
 public:
  using condition_variable_any::wait;
  using condition_variable_any::wait_for;
  template <class Lock, class Pred>
  bool wait(Lock&, stop_token, Pred pred) {
    return pred();
  }
  template <class Lock, class Rep, class Period, class Pred>
  bool wait_for(Lock&, stop_token, const chrono::duration<Rep, Period>&, Pred pred) {
    return pred();
  }
};

}  // namespace std

#define condition_variable_any redscope_condition_variable_any

#endif
