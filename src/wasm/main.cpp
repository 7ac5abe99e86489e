// The module's export (redscope_call, for Module.ccall) and, natively, the
// program redscope-call: one request on stdin, its answer on stdout, so
// that the same code can be tried and tested without emscripten.
#include <iostream>
#include <iterator>
#include <string>

#include "wasm/api.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>

// The answer stays valid until the next call: ccall copies it into a JS
// string at once. The module runs one call at a time on one thread (the
// page's Worker), so one buffer is enough.
extern "C" EMSCRIPTEN_KEEPALIVE const char* redscope_call(const char* request) {
  static std::string answer;
  answer = redscope::wasm::call(request ? request : "");
  return answer.c_str();
}
#else
int main() {
  const std::string request{std::istreambuf_iterator<char>(std::cin),
                            std::istreambuf_iterator<char>()};
  std::cout << redscope::wasm::call(request) << "\n";
  return 0;
}
#endif
