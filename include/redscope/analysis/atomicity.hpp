// The atomicity checker behind `redscope atomicity`: for every memory cell
// written by an RMW and by some other instruction, each pair of RMWs and
// each RMW with each plain store to the cell, whether the two are mutually
// in scope, and whether some execution allowed by the model loses an update.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "redscope/engine/engine.hpp"

namespace redscope {

// One atom/red (or plain store) instruction's access to a cell.
struct AccessSite {
  ThreadId thread = 0;
  std::string text;  // source text of the instruction
  SourceLoc src;
  Scope scope = Scope::Gpu;
  Sem sem = Sem::Relaxed;
  bool is_rmw = true;
  bool strong = true;
};

struct AtomicityPair {
  std::string cell;
  AccessSite a, b;  // a is an RMW; b an RMW or a plain store
  // Morally strong: in the model's `ms` (PTX: both strong, each one's scope
  // containing the other's thread, one proxy, one virtual address).
  bool mutually_in_scope = false;
  bool scope_known = true;   // false: the model names no morally strong relation
  std::string scope_reason;  // why (not), in words read off the model's `ms`
  bool lost_update = false;  // some allowed execution loses an update
  std::string how;           // "both read <write>" / "<store> lands between the read and the write"
  // Why the model allows it: not morally strong, or a variant of the model's
  // atomicity check that leaves it out (empty: neither).
  std::string lost_update_reason;
  Witness witness;                                                // of the lost update
  std::vector<std::pair<std::string, std::string>> final_values;  // cell → value in the witness
};

struct AtomicityResult {
  std::string test, file;
  ModelRef model = kDefaultModel;
  std::string model_file;  // the user's model, if any (model_name)
  int target_sm = 90;
  std::map<std::string, std::string> metadata;  // the test's key=value lines (JSON "metadata")
  std::vector<AtomicityPair> pairs;
  // A verdict-only run (EngineOptions::verdict_only): whether any pair loses
  // an update, as `pairs` holding the one pair found (with its witness) or
  // none (verdict_by: one solver query per path proved it impossible).
  bool verdict_only = false;
  VerdictBy verdict_by = VerdictBy::Listing;
  double seconds = 0;
  std::optional<std::string> error;
  std::string error_kind;  // "input", "timeout", "memory" or "internal" (failure.hpp)
};

// Throws InputError for inputs the expansion rejects.
AtomicityResult check_atomicity(const LitmusTest& test, const EngineOptions& opts);
AtomicityResult check_atomicity_file(const std::string& path, const EngineOptions& opts);

std::string render_atomicity_text(const AtomicityResult& r);
// One result as an element of the JSON array (no separator): "[", items
// joined by ",\n", "\n]\n" is render_atomicity_json.
std::string render_atomicity_json_item(const AtomicityResult& r);
std::string render_atomicity_json(const std::vector<AtomicityResult>& results);

}  // namespace redscope
