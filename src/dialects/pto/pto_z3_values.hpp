// The Z3 twin of pto::reduce (core/pto.hpp): the same rules over bit-vector
// lanes, built from the twins of values.hpp (z3_values.hpp). Masks and the
// order are concrete; lanes may be any terms. tests/test_pto.cpp checks the
// two against each other on random and special inputs.
#pragma once

#include <vector>

#include <z3++.h>

#include "redscope/dialects/pto/pto.hpp"

namespace redscope {

using ZLanes = std::vector<z3::expr>;

ZLanes z3_reduce(z3::context& c, pto::Reduce r, pto::Elem e, const ZLanes& in, const pto::Mask& m,
                 pto::Order order);

// Lanes as numerals of the element width.
ZLanes z3_lanes(z3::context& c, pto::Elem e, const pto::Lanes& v);

}  // namespace redscope
