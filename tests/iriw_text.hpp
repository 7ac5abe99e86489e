// IRIW with n readers as PTX litmus text: two writers (x and y in CTAs 0
// and 1), n readers alternating the order they read x and y, each thread in
// its own CTA of one GPU. 4^n outcomes: the tests of the enumerator's
// workers and of listings use it where they need many.
#pragma once

#include <string>

#include <fmt/format.h>

namespace redscope::testing {

// `fence`: an instruction between each reader's two loads (IRIW+fence.sc
// with "fence.sc.gpu").
inline std::string iriw_text(int n, const char* fence = nullptr) {
  std::string s = "PTX iriw\n{ x=0; y=0; }\n";
  for (int t = 0; t < n + 2; ++t) s += fmt::format("{}P{}@cta {},gpu 0", t ? " | " : " ", t, t);
  s += " ;\n st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1";
  for (int r = 0; r < n; ++r) s += fmt::format(" | ld.relaxed.gpu r0, {}", r % 2 ? "y" : "x");
  if (fence) {
    s += " ;\n |";
    for (int r = 0; r < n; ++r) s += fmt::format(" | {}", fence);
  }
  s += " ;\n |";
  for (int r = 0; r < n; ++r) s += fmt::format(" | ld.relaxed.gpu r1, {}", r % 2 ? "x" : "y");
  return s + " ;\nexists (P2:r0 == 1 /\\ P2:r1 == 0)\n";
}

}  // namespace redscope::testing
