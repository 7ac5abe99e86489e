// SASS instruction text over the litmus lexer's tokens, for the CLI and
// the SASS litmus dialect (private to the frontend).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "redscope/dialects/sass/sass.hpp"
#include "redscope/frontend/lexer.hpp"

namespace redscope::sass::detail {

// Parses one instruction from `toks` (which end with a Tok::End; one ';'
// before it is allowed). Throws InputError at the offending token of `file`.
// `operands`, when given, receives where each immediate operand was written
// (by the name of its field: "target", "offset", "imm", "bar", "tcount"), so
// that an encoding error can point at it.
Instr parse_instruction(const std::vector<redscope::detail::Token>& toks, const std::string& file,
                        std::map<std::string, SourceLoc>* operands = nullptr);

// Where an encoding error of an instruction parsed from `toks` is: at the
// operand it names, else at the instruction.
SourceLoc error_loc(const SassError& e, const std::vector<redscope::detail::Token>& toks,
                    const std::map<std::string, SourceLoc>& operands);

// A register operand's number: R0-R62, RZ (63); R63 is accepted as RZ.
bool register_number(std::string_view s, unsigned& out);
// A predicate's number: P0-P6, PT (7).
bool predicate_number(std::string_view s, unsigned& out);

std::string register_name(unsigned r);
std::string predicate_name(const Pred& p);

}  // namespace redscope::sass::detail
