// `redscope ptxas-check`: NVIDIA's assembler as the authority on what PTX
// is (docs/cli.md). Each thread of a PTX litmus test becomes a kernel of a
// PTX module (registers declared from the instruction types, locations as
// .param addresses or .shared variables, the instruction text verbatim),
// ptxas assembles it for the test's target, and each instruction's verdict
// (accepted or rejected) is compared with redscope's own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/diagnostic.hpp"
#include "redscope/core/json.hpp"

namespace redscope {

struct PtxasTool {
  std::string path;     // the executable
  std::string release;  // "13.0", from `ptxas --version`
  int max_ptx = 0;      // the highest PTX ISA .version it reads, times ten (90: 9.0)
};

// The ptxas to use: `given` when set (--ptxas PATH), else `ptxas` on PATH,
// else $CUDA_HOME/bin/ptxas, else /usr/local/cuda/bin/ptxas. None, with
// `why` saying where it looked, when none runs. Each probe (`--version`, the
// highest .version read) waits at most min(`timeout`, 20) seconds (20 when
// `timeout` is 0), its process group killed then.
std::optional<PtxasTool> find_ptxas(const std::optional<std::string>& given, std::string& why,
                                    double timeout);

enum class PtxasVerdict : std::uint8_t {
  Agree,        // each instruction ptxas could read: both accept it, or both reject it
  Disagree,     // some instruction one accepts and the other rejects
  CannotJudge,  // no instruction ptxas could judge, or redscope's verdict rests on rules it does
                // not see
};
std::string_view to_string(PtxasVerdict v);  // "agree", "disagree", "cannot judge"

// One instruction (a cell of the test's table).
struct PtxasLine {
  SourceLoc loc;
  std::string text;
  bool checked = false;  // assembled, and both verdicts known
  bool redscope_accepts = true;
  bool ptxas_accepts = true;
  std::string redscope_message;  // redscope's error on it
  std::string ptxas_message;     // ptxas's errors on it, joined with "; "
  std::string not_checked;       // why it was not judged (empty when checked)
  bool agrees() const { return !checked || redscope_accepts == ptxas_accepts; }
};

struct PtxasFileResult {
  std::string file;
  PtxasVerdict verdict = PtxasVerdict::CannotJudge;
  std::string reason;  // cannot judge: why, one phrase (also how the summary counts it)
  bool redscope_accepts = true;
  std::optional<Diagnostic> redscope_error;
  int target_sm = 0;
  std::vector<PtxasLine> lines;
};

struct PtxasCheckOptions {
  PtxasTool tool;
  double timeout_seconds = 60;  // per ptxas call
  unsigned jobs = 1;
  std::size_t max_file_bytes = std::size_t{16} << 20;
  std::size_t files_per_call = 16;     // files assembled together (one module per target)
  std::optional<std::string> ptx_dir;  // also write each file's module there
};

// Checks every file (in order; results in the same order).
std::vector<PtxasFileResult> ptxas_check(const std::vector<std::string>& files,
                                         const PtxasCheckOptions& opts);

// The PTX module `ptxas-check` assembles for one file (its own: no other
// file's kernels), or the reason there is none.
std::string ptxas_module_of(const std::string& file, const PtxasTool& tool,
                            std::size_t max_file_bytes, std::string* why_none = nullptr);

// Text: one line per file (`FILE: agree ...`), then the instructions that
// disagree, and unless `brief` those not checked, each at FILE:LINE:COL.
std::string render_ptxas_text(const PtxasFileResult& r, bool brief);
Json ptxas_json(const PtxasFileResult& r);

}  // namespace redscope
