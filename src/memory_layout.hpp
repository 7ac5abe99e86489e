// Memory layout of a test: every location is an array of cells of one
// element type; each access touches whole cells. Private to the expansion.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "redscope/litmus.hpp"

namespace redscope::detail {

struct Location {
  DataType cell = DataType::S32;   // element type of every cell (a packed type's lane)
  std::size_t count = 1;           // cells
  bool is_array = false;           // named by element (x[0]) rather than by name
  Space space = Space::Global;     // where it lives (generic accesses resolve here)
  std::vector<std::uint64_t> init; // bits per cell
};

// "x" for a scalar, "v[1]" for an element of an array.
std::string cell_name(const std::string& base, const Location& l, std::size_t i);

// One cell an access touches, and where its bits sit in the accessed value.
struct CellAccess {
  std::string cell;
  DataType type;
  unsigned element = 0;    // vector element
  unsigned lane = 0;       // lane within the element (packed or wider-than-cell access)
  unsigned bit_offset = 0; // position of the lane's bits within the element value
};

class MemoryLayout {
 public:
  // Checks every access (sizes, alignment, state spaces, CTA privacy of
  // shared memory) and sizes undeclared locations to cover their accesses.
  explicit MemoryLayout(const LitmusTest& t);

  const std::map<std::string, Location>& locations() const { return locs_; }
  // The cells an access instruction touches, element by element.
  std::vector<CellAccess> cells(const Instruction& in) const;
  Space space_of(const std::string& base) const { return locs_.at(base).space; }

 private:
  void size_locations();
  void check_spaces();
  void fill_init();
  void check_condition_cells() const;

  const LitmusTest& t_;
  std::map<std::string, Location> locs_;
  std::map<std::string, const InitEntry*> decl_;
};

}  // namespace redscope::detail
