// The herd/Dat3M litmus container grammar that litmus dialects share
// (docs/litmus-format.md): the header line and metadata, the init block, the
// thread row with placements (`P0@cta 0,gpu 0`), the instruction table,
// `locations`, `filter` and the final condition. What a cell of the
// instruction table means is the dialect's business: the container hands
// each cell to the dialect's instruction parser.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/litmus.hpp"
#include "redscope/frontend/lexer.hpp"

namespace redscope::detail {

// One non-empty cell of the instruction table: its tokens (with their
// locations) followed by a Tok::End token at the cell's end, and what of the
// test around it an instruction may depend on.
struct InstructionCell {
  const std::vector<Token>& toks;
  const std::string& file;  // for diagnostics
  int target_sm;            // the test's Target=sm_NN
  const LitmusTest& test;   // the test so far: header, init block, thread row
};

// A dialect's instruction parser: appends the cell's instruction (or label)
// to `thread`, or throws InputError at the offending token. It may keep
// state across the cells of one test (the SASS dialect's branch targets).
using InstructionParser = std::function<void(const InstructionCell& cell, ThreadCode& thread)>;

// What differs between the dialects that share the container.
// The placement rule every dialect's tests obey (PTX ISA §2.2.2), in the
// words of the target-rule table (docs/litmus-format.md "Targets").
inline constexpr std::string_view kSharedClusterFeature =
    "a cluster shared by CTAs (placement `cluster N`)";
inline constexpr std::string_view kSharedClusterSource =
    "PTX ISA §2.2.2 Cluster of Cooperative Thread Arrays; %clusterid, Target ISA notes";

struct ContainerOptions {
  std::string_view arch = "PTX";        // the first word of the file
  bool address_registers = false;       // init may give a register a location's address: P0:R2 = x;
  bool register_lanes = false;          // the condition may name a register's lane: P0:%v[3]
  std::int64_t max_element_index = 64;  // largest array index a condition may name
  int default_target_sm = 90;           // the Target when the header names none
};

// Parses the container, handing every cell to `instructions` in row order,
// thread by thread within a row. Checks labels once all rows are read.
LitmusTest parse_container(std::string_view text, const std::string& file,
                           const InstructionParser& instructions,
                           const ContainerOptions& options = {});

// Checks that the condition, filter and `locations` name only registers and
// locations the test has; throws InputError at the first that it does not.
void check_references(const LitmusTest& t);

// `[locations] [filter] quantifier condition` alone, into `t`: for dialects
// whose program is not the container's table. `tail` is the whole file with
// everything before the condition part blanked (newlines kept), so that
// errors carry true line:col.
LitmusTest parse_condition_tail(std::string_view tail, const std::string& file, LitmusTest t,
                                const ContainerOptions& options);

}  // namespace redscope::detail
