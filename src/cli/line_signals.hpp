// JSON Lines that stay valid however a run is cut (docs/cli.md `--format
// jsonl`): SIGINT, SIGTERM and SIGHUP are held while a line is being written
// and delivered once it is whole and flushed. Between lines stdout holds
// nothing unwritten (each line is flushed), so a signal there ends the run at
// once, as it would without the handlers. A second signal during a line ends
// the run at once (an impatient user's second Ctrl-C).
//
// Signal dispositions belong to the process, so this state is process-wide by
// nature: one LineSignals per run, made before any worker starts.
#pragma once

#include <cstdio>

namespace redscope::cli {

class LineSignals {
 public:
  // Installs the handlers (restored by the destructor).
  LineSignals();
  ~LineSignals();
  LineSignals(const LineSignals&) = delete;
  LineSignals& operator=(const LineSignals&) = delete;

  // Around one line: begin() before its first byte; end() after its last,
  // which flushes `out` and then delivers a signal that came meanwhile.
  static void begin();
  static void end(std::FILE* out);
};

}  // namespace redscope::cli
