// The C types of CUDA litmus tests and the PTX types they are read at.
#include <array>
#include <utility>

#include "redscope/dialects/cuda/cuda.hpp"

namespace redscope::cuda {

namespace {

struct CTypeRow {
  CType type;
  std::string_view name;
  DataType data;
};

constexpr std::array<CTypeRow, 6> kCTypes{{
    {CType::Int, "int", DataType::S32},
    {CType::Unsigned, "unsigned", DataType::U32},
    {CType::LongLong, "long long", DataType::S64},
    {CType::ULongLong, "unsigned long long", DataType::U64},
    {CType::Float, "float", DataType::F32},
    {CType::Double, "double", DataType::F64},
}};

// Other spellings of the same types (C's type-specifier rules, C17 6.7.2).
constexpr std::array<std::pair<std::string_view, CType>, 8> kSpellings{{
    {"signed", CType::Int},
    {"signed int", CType::Int},
    {"unsigned int", CType::Unsigned},
    {"long long int", CType::LongLong},
    {"signed long long", CType::LongLong},
    {"signed long long int", CType::LongLong},
    {"unsigned long long int", CType::ULongLong},
    {"long long signed", CType::LongLong},
}};

}  // namespace

std::string_view c_name(CType t) {
  for (const CTypeRow& r : kCTypes)
    if (r.type == t) return r.name;
  return "int";
}

DataType data_type(CType t) {
  for (const CTypeRow& r : kCTypes)
    if (r.type == t) return r.data;
  return DataType::S32;
}

std::optional<CType> c_type_named(std::string_view words) {
  for (const CTypeRow& r : kCTypes)
    if (r.name == words) return r.type;
  for (const auto& [spelling, t] : kSpellings)
    if (spelling == words) return t;
  return std::nullopt;
}

}  // namespace redscope::cuda
