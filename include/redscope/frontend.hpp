// Frontend: herd/Dat3M-style PTX litmus text → LitmusTest.
// The accepted format is documented in docs/litmus-format.md.
#pragma once

#include <string>
#include <string_view>

#include "redscope/litmus.hpp"

namespace redscope {

// Parses one litmus test. Throws InputError (file:line:col) on bad input.
LitmusTest parse_litmus(std::string_view text, const std::string& file);

// Reads and parses a file; an unreadable file is an InputError at 0:0.
LitmusTest parse_litmus_file(const std::string& path);

}  // namespace redscope
