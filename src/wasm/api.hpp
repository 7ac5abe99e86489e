// The playground's one call (docs/playground.md, the JS API): a JSON request
// in, a JSON answer out, so the page's Worker and Node's test use one path.
#pragma once

#include <string>
#include <string_view>

namespace redscope::wasm {

// {"command": "run"|"dot"|"explain"|"atomicity"|"check_model"|"models"|
// "version", "test": TEXT, "file": NAME, "model": "ptx.cat"|null,
// "model_text": TEXT|null, "model_file": NAME, "options": {...}} → the
// answer, or {"error": {"file", "line", "column", "message", "text"}}.
std::string call(std::string_view request);

}  // namespace redscope::wasm
