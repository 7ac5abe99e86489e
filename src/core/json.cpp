#include "redscope/core/json.hpp"

#include <fmt/format.h>

#include "redscope/core/diagnostic.hpp"

namespace redscope {

namespace {
// Containers at this depth and deeper stay on one line in Layout::Nested
// (an outcome, a witness, an atomicity pair: one line each).
constexpr int kInlineDepth = 3;

}  // namespace

Json Json::number(double v, int decimals) {
  Json j;
  j.kind_ = Kind::Raw;
  j.text_ = fmt::format("{:.{}f}", v, decimals);
  return j;
}

Json Json::raw(std::string text) {
  Json j;
  j.kind_ = Kind::Raw;
  j.text_ = std::move(text);
  return j;
}

Json Json::array() {
  Json j;
  j.kind_ = Kind::Array;
  return j;
}

Json Json::object() {
  Json j;
  j.kind_ = Kind::Object;
  return j;
}

Json Json::strings(const std::vector<std::string>& v) {
  Json j = array();
  for (const std::string& s : v) j.push(s);
  return j;
}

Json& Json::push(Json v) {
  items_.emplace_back(std::string(), std::move(v));
  return *this;
}

Json& Json::set(std::string key, Json v) {
  for (auto& [k, old] : items_)
    if (k == key) {
      old = std::move(v);
      return *this;
    }
  items_.emplace_back(std::move(key), std::move(v));
  return *this;
}

std::string Json::dump(Layout layout, int depth) const {
  std::string out;
  write(out, layout, depth);
  return out;
}

void Json::write(std::string& out, Layout layout, int depth) const {
  switch (kind_) {
    case Kind::Null: out += "null"; return;
    case Kind::Raw: out += text_; return;
    case Kind::String: out += json_quoted(text_); return;
    case Kind::Array:
    case Kind::Object: break;
  }
  const bool object = kind_ == Kind::Object;
  out += object ? '{' : '[';
  const bool spread = layout == Layout::Nested && depth < kInlineDepth && !items_.empty();
  const std::string indent(static_cast<std::size_t>(2 * (depth + 1)), ' ');
  for (std::size_t i = 0; i < items_.size(); ++i) {
    if (i) out += ',';
    if (spread)
      out += '\n' + indent;
    else if (i)
      out += ' ';
    if (object) out += json_quoted(items_[i].first) + ": ";
    items_[i].second.write(out, layout, depth + 1);
  }
  if (spread) out += '\n' + std::string(static_cast<std::size_t>(2 * depth), ' ');
  out += object ? '}' : ']';
}

std::string json_quoted(std::string_view s) { return "\"" + json_escape(s) + "\""; }

std::string json_escape(std::string_view raw) {
  const std::string s = valid_utf8(raw);  // JSON is UTF-8: never echo a stray byte
  std::string o;
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          o += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        else
          o += c;
    }
  }
  return o;
}

}  // namespace redscope
