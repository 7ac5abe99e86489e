// A thread body is CUDA C++ that nvcc compiles: redscope does not parse it,
// but it must find where it ends as nvcc will, keep it inside its kernel
// (docs/cuda.md "Limits"), and find the declarations of the locals the
// condition observes. A small scanner of C++ tokens (comments, string and
// character literals, digit separators) serves all three.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "redscope/frontend/text_cursor.hpp"

namespace redscope::cuda::detail {

// At the first character after a body's `{`: moves to its closing `}` (the
// cursor on it). InputError at the body's start when none closes it.
void skip_body(TextCursor& c);

// Refuses what could leave the kernel or change what nvcc reads around it:
// preprocessor lines (`#`, `%:`), line splices (`\`), digraph braces (`<%`,
// `%>`), raw string literals, `asm`, `_Pragma`, declarations that leave a
// function (`extern`, `namespace`, `template`, `__global__`, `__device__`,
// `__host__`), `return`/`goto` (they would skip the stores of observed
// locals at the kernel's end) and names of the kernels' own (`__out`,
// `redscope_*`). InputError at the offending token.
void check_body(std::string_view body, SourceLoc at, const std::string& file);

struct LocalDecl {
  std::string type_words;  // "unsigned long long" (const and volatile dropped)
  SourceLoc at;            // the local's name in its declaration
};

// The top-level declaration of `name` in the body (`int r0 = ...;`, `int a,
// r0;`), if any: at brace depth 0, so it is in scope at the body's end.
std::optional<LocalDecl> top_level_local(std::string_view body, SourceLoc at,
                                         std::string_view name);

}  // namespace redscope::cuda::detail
