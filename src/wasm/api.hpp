// The playground's one call (docs/playground.md, the JS API): a JSON request
// in, a JSON answer out, so the page's Worker and Node's test use one path.
#pragma once

#include <string>
#include <string_view>

#include "redscope/core/diagnostic.hpp"

namespace redscope::wasm {

// {"command": "run"|"dot"|"explain"|"atomicity"|"check_model"|"models"|
// "version", "test": TEXT, "file": NAME, "model": "ptx.cat"|null,
// "model_text": TEXT|null, "model_file": NAME, "options": {...}} → the
// answer, or {"error": {"file", "line", "column", "message", "text"}}.
// Every member and option is checked as the CLI checks its flags
// (wasm/request.hpp); a request over 2 x 4096 MiB + 1 MiB is refused unread.
std::string call(std::string_view request);

// The answer that reports `d`: {"error": {...}}, as call() answers.
std::string error_answer(const Diagnostic& d);

}  // namespace redscope::wasm
