#include "redscope/core/types.hpp"

#include <charconv>

#include <fmt/format.h>

#include "redscope/core/values.hpp"

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
    case DataType::B16:
    case DataType::U16:
    case DataType::S16:
    case DataType::F16:
    case DataType::BF16: return 16;
    case DataType::B32:
    case DataType::U32:
    case DataType::S32:
    case DataType::F32:
    case DataType::F16x2:
    case DataType::BF16x2: return 32;
    case DataType::B64:
    case DataType::U64:
    case DataType::S64:
    case DataType::F64: return 64;
    case DataType::Pred: return 1;
  }
  return 32;
}

bool is_signed(DataType t) {
  return t == DataType::S16 || t == DataType::S32 || t == DataType::S64;
}

bool is_float(DataType t) {
  return t == DataType::F16 || t == DataType::BF16 || t == DataType::F16x2 ||
         t == DataType::BF16x2 || t == DataType::F32 || t == DataType::F64;
}

bool is_packed(DataType t) { return t == DataType::F16x2 || t == DataType::BF16x2; }

bool is_bits(DataType t) { return t == DataType::B16 || t == DataType::B32 || t == DataType::B64; }

DataType lane_type(DataType t) {
  if (t == DataType::F16x2) return DataType::F16;
  if (t == DataType::BF16x2) return DataType::BF16;
  return t;
}

unsigned lanes_of(DataType t) { return is_packed(t) ? 2 : 1; }

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

std::string_view to_string(MemOrder o) {
  switch (o) {
    case MemOrder::NonAtomic: return "non-atomic";
    case MemOrder::Relaxed: return "memory_order_relaxed";
    case MemOrder::Consume: return "memory_order_consume";
    case MemOrder::Acquire: return "memory_order_acquire";
    case MemOrder::Release: return "memory_order_release";
    case MemOrder::AcqRel: return "memory_order_acq_rel";
    case MemOrder::SeqCst: return "memory_order_seq_cst";
  }
  return "?";
}

std::string_view to_string(ThreadScope s) {
  switch (s) {
    case ThreadScope::Thread: return "thread_scope_thread";
    case ThreadScope::Block: return "thread_scope_block";
    case ThreadScope::Cluster: return "thread_scope_cluster";
    case ThreadScope::Device: return "thread_scope_device";
    case ThreadScope::System: return "thread_scope_system";
  }
  return "?";
}

Sem ptx_sem(MemOrder o) {
  switch (o) {
    case MemOrder::NonAtomic: return Sem::Weak;
    case MemOrder::Relaxed:
    case MemOrder::Consume: return Sem::Relaxed;
    case MemOrder::Acquire: return Sem::Acquire;
    case MemOrder::Release: return Sem::Release;
    case MemOrder::AcqRel: return Sem::AcqRel;
    case MemOrder::SeqCst: return Sem::Sc;
  }
  return Sem::Weak;
}

Scope ptx_scope(ThreadScope s) {
  switch (s) {
    case ThreadScope::Thread:
    case ThreadScope::Block: return Scope::Cta;
    case ThreadScope::Cluster: return Scope::Cluster;
    case ThreadScope::Device: return Scope::Gpu;
    case ThreadScope::System: return Scope::Sys;
  }
  return Scope::Sys;
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

std::string_view to_string(Proxy p) {
  switch (p) {
    case Proxy::Generic: return "generic";
    case Proxy::Surface: return "surface";
    case Proxy::Texture: return "texture";
    case Proxy::Constant: return "constant";
    case Proxy::Async: return "async";
  }
  return "?";
}

std::string_view to_string(ProxyFence f) {
  switch (f) {
    case ProxyFence::Alias: return "alias";
    case ProxyFence::Surface: return "surface";
    case ProxyFence::Texture: return "texture";
    case ProxyFence::Constant: return "constant";
    case ProxyFence::Async: return "async";
  }
  return "?";
}

namespace {
struct TypeName {
  DataType type;
  std::string_view name;
};
constexpr TypeName kTypeNames[] = {
    {DataType::B16, "b16"},       {DataType::U16, "u16"},   {DataType::S16, "s16"},
    {DataType::B32, "b32"},       {DataType::U32, "u32"},   {DataType::S32, "s32"},
    {DataType::B64, "b64"},       {DataType::U64, "u64"},   {DataType::S64, "s64"},
    {DataType::F16, "f16"},       {DataType::BF16, "bf16"}, {DataType::F16x2, "f16x2"},
    {DataType::BF16x2, "bf16x2"}, {DataType::F32, "f32"},   {DataType::F64, "f64"},
    {DataType::Pred, "pred"}};
}  // namespace

std::string_view to_string(DataType t) {
  for (const TypeName& n : kTypeNames)
    if (n.type == t) return n.name;
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
  for (const TypeName& n : kTypeNames)
    if (n.name == s && n.type != DataType::Pred) return n.type;
  return std::nullopt;
}

std::optional<FloatFormat> float_format(DataType t) {
  switch (lane_type(t)) {
    case DataType::F16: return FloatFormat::F16;
    case DataType::BF16: return FloatFormat::BF16;
    case DataType::F32: return FloatFormat::F32;
    case DataType::F64: return FloatFormat::F64;
    default: return std::nullopt;
  }
}

std::string format_value(std::uint64_t bits, DataType t) {
  const unsigned w = width_of(t);
  bits &= w == 64 ? ~0ULL : ((1ULL << w) - 1);
  if (is_packed(t)) return fmt::format("0x{:08x}", bits);
  if (auto f = float_format(t)) return format_float(*f, bits);
  if (is_signed(t)) {
    const std::int64_t v = w == 64 ? static_cast<std::int64_t>(bits)
                                   : static_cast<std::int64_t>(bits << (64 - w)) >> (64 - w);
    return fmt::format("{}", v);
  }
  return fmt::format("{}", bits);
}

namespace {
// The bits of +infinity in format f: exponent all ones, fraction zero.
std::uint64_t canonical_inf_magnitude(FloatFormat f) {
  switch (f) {
    case FloatFormat::F16: return 0x7c00;
    case FloatFormat::BF16: return 0x7f80;
    case FloatFormat::F32: return 0x7f800000;
    case FloatFormat::F64: return 0x7ff0000000000000ULL;
  }
  return 0;
}

// Hexadecimal bit pattern "0x..." that fits in `width` bits.
std::optional<std::uint64_t> hex_bits(std::string_view s, unsigned width) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return std::nullopt;
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), v, 16);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  if (width < 64 && (v >> width) != 0) return std::nullopt;
  return v;
}

// Decimal integer, optionally negative, that fits `width` bits signed or unsigned.
std::optional<std::uint64_t> decimal_bits(std::string_view s, unsigned width) {
  const bool neg = !s.empty() && s[0] == '-';
  if (neg) s.remove_prefix(1);
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  const std::uint64_t mask = width == 64 ? ~0ULL : ((1ULL << width) - 1);
  if (neg) {
    if (width < 64 ? v > (1ULL << (width - 1)) : v > (1ULL << 63)) return std::nullopt;
    return (0 - v) & mask;
  }
  if (width < 64 && v > mask) return std::nullopt;
  return v;
}
}  // namespace

std::optional<std::uint64_t> literal_bits(std::string_view text, DataType t) {
  const unsigned w = width_of(t);
  if (auto h = hex_bits(text, w)) return h;
  if (t == DataType::Pred) {
    if (text == "0" || text == "false") return 0;
    if (text == "1" || text == "true") return 1;
    return std::nullopt;
  }
  if (is_packed(t)) return std::nullopt;  // packed pairs are written as bit patterns
  if (auto f = float_format(t)) {
    // A finite decimal too large for the format is a mistake, not infinity.
    const auto bits = parse_float_literal(*f, text);
    const bool written_inf =
        text.find("inf") != std::string_view::npos || text.find("INF") != std::string_view::npos;
    const bool is_hex = text.size() > 1 && text[0] == '0' &&
                        std::string_view("xXfFdD").find(text[1]) != std::string_view::npos;
    if (bits && !written_inf && !is_hex && !is_nan(*f, *bits) &&
        (*bits & ~(1ULL << (width_of(*f) - 1))) == (canonical_inf_magnitude(*f)))
      return std::nullopt;
    return bits;
  }
  return decimal_bits(text, w);
}

}  // namespace redscope
