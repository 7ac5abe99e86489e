// SCAFFOLD (issue 33): replaced by the matrix generator before it lands.
#include "redscope/generate/matrix.hpp"

#include <stdexcept>

namespace redscope::generate {

MatrixSpec read_matrix_spec(const std::string&, std::size_t) {
  throw std::runtime_error("gen matrix: not built yet");
}

MatrixCount for_each_cell(const MatrixSpec&, const std::function<void(const MatrixCell&)>&) {
  throw std::runtime_error("gen matrix: not built yet");
}

}  // namespace redscope::generate
