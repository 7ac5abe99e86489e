// `redscope merge`: joins the JSON results of shards (`run --shard i/n
// --format json`) into the JSON of one run.
#pragma once

#include <string>
#include <vector>

namespace redscope {

struct MergedRun {
  std::string json;  // the results of all shards, ordered by file path
  std::size_t tests = 0, errors = 0;
};

// Each text is the JSON array that `redscope run --format json` prints, or
// the JSON Lines of `--format jsonl`. Throws InputError (file:line:col) on
// malformed JSON, an object that is not a result of `run` (without one of
// the fields `run` writes on every result, or with one of another type; the
// JSON of xval, atomicity, report --matrix, ... named as such), or a file
// that appears in two shards.
MergedRun merge_run_json(const std::vector<std::pair<std::string, std::string>>& named_texts);

// Does `index` (0-based, in the order files are collected) belong to shard
// `shard` (1-based) of `count`? Round-robin, so shards get similar loads.
inline bool in_shard(std::size_t index, unsigned shard, unsigned count) {
  return index % count == shard - 1;
}

}  // namespace redscope
