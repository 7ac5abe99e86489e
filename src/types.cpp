#include "redscope/types.hpp"

#include <fmt/format.h>

namespace redscope {

bool scope_includes(Scope scope, const Placement& origin, const Placement& observer) {
  switch (scope) {
    case Scope::Cta: return origin.gpu == observer.gpu && origin.cta == observer.cta;
    case Scope::Cluster: return origin.gpu == observer.gpu && origin.cluster == observer.cluster;
    case Scope::Gpu: return origin.gpu == observer.gpu;
    case Scope::Sys: return true;
  }
  return false;
}

unsigned width_of(DataType t) {
  switch (t) {
    case DataType::B32: case DataType::U32: case DataType::S32: return 32;
    case DataType::B64: case DataType::U64: case DataType::S64: return 64;
  }
  return 32;
}

bool is_signed(DataType t) { return t == DataType::S32 || t == DataType::S64; }

std::string_view to_string(Scope s) {
  switch (s) {
    case Scope::Cta: return "cta";
    case Scope::Cluster: return "cluster";
    case Scope::Gpu: return "gpu";
    case Scope::Sys: return "sys";
  }
  return "?";
}

std::string_view to_string(Sem s) {
  switch (s) {
    case Sem::Weak: return "weak";
    case Sem::Relaxed: return "relaxed";
    case Sem::Acquire: return "acquire";
    case Sem::Release: return "release";
    case Sem::AcqRel: return "acq_rel";
    case Sem::Sc: return "sc";
  }
  return "?";
}

std::string_view to_string(Space s) {
  switch (s) {
    case Space::Generic: return "generic";
    case Space::Global: return "global";
    case Space::SharedCta: return "shared::cta";
    case Space::SharedCluster: return "shared::cluster";
  }
  return "?";
}

std::string_view to_string(DataType t) {
  switch (t) {
    case DataType::B32: return "b32";
    case DataType::U32: return "u32";
    case DataType::S32: return "s32";
    case DataType::B64: return "b64";
    case DataType::U64: return "u64";
    case DataType::S64: return "s64";
  }
  return "?";
}

std::optional<Scope> parse_scope(std::string_view s) {
  if (s == "cta") return Scope::Cta;
  if (s == "cluster") return Scope::Cluster;
  if (s == "gpu") return Scope::Gpu;
  if (s == "sys") return Scope::Sys;
  return std::nullopt;
}

std::optional<Sem> parse_sem(std::string_view s) {
  if (s == "weak") return Sem::Weak;
  if (s == "relaxed") return Sem::Relaxed;
  if (s == "acquire") return Sem::Acquire;
  if (s == "release") return Sem::Release;
  if (s == "acq_rel") return Sem::AcqRel;
  if (s == "sc") return Sem::Sc;
  return std::nullopt;
}

std::optional<DataType> parse_data_type(std::string_view s) {
  if (s == "b32") return DataType::B32;
  if (s == "u32") return DataType::U32;
  if (s == "s32") return DataType::S32;
  if (s == "b64") return DataType::B64;
  if (s == "u64") return DataType::U64;
  if (s == "s64") return DataType::S64;
  return std::nullopt;
}

std::string format_value(std::uint64_t bits, DataType t) {
  const unsigned w = width_of(t);
  const std::uint64_t mask = w == 64 ? ~0ULL : ((1ULL << w) - 1);
  bits &= mask;
  if (is_signed(t)) {
    std::int64_t v = w == 64 ? static_cast<std::int64_t>(bits)
                             : static_cast<std::int64_t>(static_cast<std::int32_t>(bits));
    return fmt::format("{}", v);
  }
  return fmt::format("{}", bits);
}

}  // namespace redscope
