// Memory layout of a test: every location is an array of cells of one width,
// the size of the scalar accesses made to it. Private to the expansion.
//
// PTX memory is untyped. A declaration gives a location's size, its initial
// bits and the way its values are printed; the cells follow the accesses:
// every access (a scalar, one element of a vector, one lane of a packed
// f16x2/bf16x2 value) covers exactly one cell. Accesses of different sizes to
// the same bytes would overlap partially; PTX relates only accesses that
// overlap completely (morally strong needs complete overlap, and the axioms
// do not apply to a program with a mixed-size data race), so such tests are
// rejected rather than split into lanes that could tear (docs/model.md).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "redscope/core/litmus.hpp"
#include "redscope/events/events.hpp"

namespace redscope::detail {

struct Location {
  DataType cell = DataType::S32;    // how a cell's value is printed and compared; its width
                                    // is the cell's width
  std::size_t count = 1;            // cells
  bool is_array = false;            // named by element (x[0]) rather than by name
  Space space = Space::Global;      // where it lives (generic accesses resolve here)
  std::vector<std::uint64_t> init;  // bits per cell
};

// Input limits (docs/cli.md "Input limits"): every cell is an initial write
// and a column of every relation, so an access far into an undeclared
// location (a store at offset 1 MiB: 262,144 cells) or a test of very many
// locations is a located error, not gigabytes of events.
inline constexpr std::size_t kMaxCellsPerLocation = 4096;  // undeclared: sized by accesses
inline constexpr std::size_t kMaxCells = 65536;            // all locations of one test

// "x" for a scalar, "v[1]" for an element of an array.
std::string cell_name(const std::string& base, const Location& l, std::size_t i);

// One cell an access touches, and where its bits sit in the accessed value.
struct CellAccess {
  std::string cell;
  DataType type;            // the instruction's scalar type (a packed type's lane type)
  unsigned element = 0;     // vector element
  unsigned lane = 0;        // lane within a packed element
  unsigned bit_offset = 0;  // position of the lane's bits within the element value
};

class MemoryLayout {
 public:
  // Checks every access (sizes, alignment, state spaces, privacy of shared
  // memory to its CTA or cluster) and sizes undeclared locations to cover
  // their accesses.
  explicit MemoryLayout(const LitmusTest& t);

  const std::map<std::string, Location>& locations() const { return locs_; }
  // Condition names of lanes of a declaration inside wider cells (`h[1]` of
  // `f16x2 h` accessed as whole words).
  const std::map<std::string, LaneView>& lane_views() const { return views_; }
  // The cells an access instruction touches, element by element.
  std::vector<CellAccess> cells(const Instruction& in) const;
  Space space_of(const std::string& base) const { return locs_.at(base).space; }

 private:
  struct Access {
    const Instruction* in;
    const ThreadCode* thread;
  };

  void choose_cells();
  void size_locations();
  void check_spaces();
  void check_shared_reach(const std::string& x, const std::vector<Access>& acc) const;
  void fill_init();
  void check_condition_cells();
  std::optional<LaneView> lane_view(const std::string& base, const Location& l,
                                    std::size_t idx) const;

  const LitmusTest& t_;
  std::map<std::string, Location> locs_;
  std::map<std::string, const InitEntry*> decl_;
  std::map<std::string, std::vector<Access>> accesses_;  // per location, in source order
  std::map<std::string, LaneView> views_;
};

}  // namespace redscope::detail
