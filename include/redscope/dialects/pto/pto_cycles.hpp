// Cycle estimates of a PTO program's reductions from the seed's tables
// (../shared/seeds/pto-vector-reductions.txt):
//   A2/A3  total_cycles = startup + completion + repeats × per_repeat
//                         + (repeats − 1) × interval
//          startup 13 (all reductions); completion 21 (f16 group reductions),
//          19 (f32 vcadd/vcmax/vcmin, every i32/f32 reduction), 17 (every i16
//          reduction); per_repeat 1 (i16 group reductions), 2 (i32, f32, f16
//          reductions); interval 18
//   A5     the latency table (popped → retire): f32 19, f16 21, i32 19,
//          i16 17 for vcadd, vcmax/vcmin, vcgadd, vcgmax/vcgmin; vcpadd f32 19,
//          f16 21
// `repeats` is how many times the instruction runs once loops are unrolled
// (an instruction issued in a loop is the repeated instruction of the A2/A3
// model); A5 gives no issue interval, so its figure is repeats × latency.
// Where the tables have no entry (f16 vcadd/vcmax/vcmin/vcpadd and i16
// full reductions on A2/A3, i64 anywhere) the figure is the nearest
// constant, marked as assumed; docs/cli.md lists them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "redscope/core/json.hpp"
#include "redscope/dialects/pto/pto.hpp"

namespace redscope {

enum class PtoArch : std::uint8_t { A2A3, A5 };

struct PtoCycleRow {
  SourceLoc loc;
  std::string core, op, text;
  pto::Elem elem = pto::Elem::F32;
  std::size_t repeats = 0;
  unsigned startup = 0, completion = 0, per_repeat = 0, interval = 0;  // A2/A3
  unsigned latency = 0;                                                // A5
  std::optional<std::uint64_t> cycles;  // none: the seed has no figure
  std::string formula;                  // "13 + 19 + 1×2 + 0×18 = 34"
  std::string assumed;                  // why a constant was assumed, if one was
};

struct PtoCycles {
  PtoArch arch = PtoArch::A2A3;
  std::vector<PtoCycleRow> rows;  // the reductions, in source order
  std::uint64_t total = 0;        // the sum over every core
  // Per core (the cores run in parallel, so the program takes at least the
  // largest of these): core name -> its reductions' cycles.
  std::map<std::string, std::uint64_t> per_core;
  std::vector<std::string> uncounted;  // operations without figures: "pto.vlds (2)"
  std::vector<std::string> never_run;  // reductions in loops that run 0 times: "15:10 pto.vcgadd"
};

PtoCycles pto_cycles(const pto::Program& program, PtoArch arch);

std::string render_cycles_text(const PtoCycles& c, const std::string& file);
Json render_cycles_json(const PtoCycles& c, const std::string& file);

}  // namespace redscope
