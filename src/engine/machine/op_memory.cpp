#include "engine/machine/op_memory.hpp"

#include <algorithm>
#include <utility>

namespace redscope::op {

std::vector<Node> nodes_up_to(const Placement& p, Scope s) {
  // Scope inclusion (src/core/types.cpp): .cta = same GPU and CTA, .cluster = same
  // GPU and cluster, .gpu = same GPU, .sys = all. One node per level.
  std::vector<Node> out{Node{Scope::Cta, p.gpu, p.cta}};
  if (s >= Scope::Cluster) out.push_back(Node{Scope::Cluster, p.gpu, p.cluster});
  if (s >= Scope::Gpu) out.push_back(Node{Scope::Gpu, p.gpu, 0});
  if (s >= Scope::Sys) out.push_back(Node{Scope::Sys, 0, 0});
  return out;
}

Memory::Memory(std::vector<std::size_t> slot_cell, std::size_t cells, std::size_t events)
    : slot_cell_(std::make_shared<const std::vector<std::size_t>>(std::move(slot_cell))),
      words_((events + 63) / 64),
      order_(cells),
      apart_(cells),
      msgs_(events) {}

void Memory::init(std::size_t cell, MsgId m, std::uint64_t value) {
  order_[cell] = {m};
  msgs_[m] = std::make_shared<Message>(value, NodeViews{});
}

void Memory::insert(std::size_t cell, std::size_t index, MsgId m, Message msg) {
  auto& o = order_[cell];
  o.insert(o.begin() + static_cast<std::ptrdiff_t>(index), m);
  msgs_[m] = std::make_shared<Message>(std::move(msg));
}

const Message& Memory::msg(MsgId m) const {
  static const Message unplaced;
  return msgs_[m] ? *msgs_[m] : unplaced;
}

Message& Memory::edit(MsgId m) {
  auto& p = msgs_[m];
  if (!p) p = std::make_shared<Message>();
  return own_copy(p);
}

void Memory::keep_apart(std::size_t cell, MsgId m, MsgId k) {
  auto& a = apart_[cell];
  const std::pair<MsgId, MsgId> p{m, k};
  auto it = std::lower_bound(a.begin(), a.end(), p);
  if (it == a.end() || *it != p) a.insert(it, p);
}

std::size_t Memory::position(std::size_t cell, MsgId m) const {
  const auto& o = order_[cell];
  return static_cast<std::size_t>(std::find(o.begin(), o.end(), m) - o.begin());
}

View Memory::initial_view() const {
  View v;
  v.at.resize(slot_cell_->size());
  v.known.assign(slot_cell_->size() * words_, 0);
  v.promise_reads.assign(slot_cell_->size(), 0);
  for (std::size_t s = 0; s < v.size(); ++s) {
    v[s] = order_[(*slot_cell_)[s]].front();
    learn(v, s, v[s]);
  }
  return v;
}

void Memory::join(View& into, const View& from) const {
  for (std::size_t s = 0; s < into.size(); ++s) {
    const std::size_t c = (*slot_cell_)[s];
    if (into[s] != from[s] && position(c, from[s]) > position(c, into[s])) into[s] = from[s];
  }
  if (into.known.size() == from.known.size())
    for (std::size_t w = 0; w < into.known.size(); ++w) into.known[w] |= from.known[w];
  if (into.promise_reads.size() == from.promise_reads.size())
    for (std::size_t s = 0; s < into.promise_reads.size(); ++s)
      into.promise_reads[s] |= from.promise_reads[s];
  into.after |= from.after;
}

void Memory::raise(View& v, std::size_t into, std::size_t from) const {
  const std::size_t c = (*slot_cell_)[into];
  if (v[into] != v[from] && position(c, v[from]) > position(c, v[into])) v[into] = v[from];
  if (!v.promise_reads.empty()) v.promise_reads[into] |= v.promise_reads[from];
  if (v.known.empty()) return;
  for (std::size_t w = 0; w < words_; ++w) v.known[into * words_ + w] |= v.known[from * words_ + w];
}

void Memory::learn(View& v, std::size_t s, MsgId m) const {
  const std::size_t c = (*slot_cell_)[s];
  if (v[s] != m && position(c, m) > position(c, v[s])) v[s] = m;
  if (!v.known.empty()) v.known[s * words_ + m / 64] |= std::uint64_t{1} << (m % 64);
}

std::vector<std::uint64_t> Memory::known_in(const View& v,
                                            const std::vector<std::size_t>& slots) const {
  std::vector<std::uint64_t> out(words_, 0);
  if (v.known.empty()) return out;
  for (std::size_t s : slots)
    for (std::size_t w = 0; w < words_; ++w) out[w] |= v.known[s * words_ + w];
  return out;
}

void Memory::join(NodeViews& into, const NodeViews& from) const {
  for (const auto& [node, view] : from) push(into, {node}, view);
}

void Memory::push(NodeViews& into, const std::vector<Node>& nodes, const View& v) const {
  for (const Node& n : nodes) {
    auto it = std::lower_bound(into.begin(), into.end(), n,
                               [](const auto& e, const Node& k) { return e.first < k; });
    if (it != into.end() && it->first == n)
      join(it->second, v);
    else
      into.insert(it, {n, v});
  }
}

void Memory::pull(View& into, const NodeViews& from, const std::vector<Node>& nodes) const {
  for (const auto& [node, view] : from)
    if (std::find(nodes.begin(), nodes.end(), node) != nodes.end()) join(into, view);
}

void encode(const View& v, KeySink& out, const std::vector<char>* dead_slots) {
  out.push_back(v.size());
  if (!dead_slots) {
    out.insert(v.at.begin(), v.at.end());
    out.insert(v.known.begin(), v.known.end());
    out.insert(v.promise_reads.begin(), v.promise_reads.end());
  } else {
    const std::size_t words = v.size() ? v.known.size() / v.size() : 0;
    for (std::size_t s = 0; s < v.size(); ++s) {
      if ((*dead_slots)[s]) continue;
      out.push_back(v.at[s]);
      for (std::size_t w = 0; w < words; ++w) out.push_back(v.known[s * words + w]);
      if (!v.promise_reads.empty()) out.push_back(v.promise_reads[s]);
    }
  }
  out.push_back(v.after);
}

void encode(const NodeViews& nv, KeySink& out, const std::vector<char>* dead_slots) {
  out.push_back(nv.size());
  for (const auto& [n, v] : nv) {
    out.push_back(static_cast<std::uint64_t>(n.level));
    out.push_back(static_cast<std::uint64_t>(static_cast<std::int64_t>(n.gpu)));
    out.push_back(static_cast<std::uint64_t>(static_cast<std::int64_t>(n.group)));
    encode(v, out, dead_slots);
  }
}

void Memory::encode(KeySink& out, const std::vector<char>* dead,
                    const std::vector<char>* dead_slots) const {
  for (std::size_t c = 0; c < order_.size(); ++c) {
    const auto& o = order_[c];
    if (dead && (*dead)[c]) {
      out.push_back(~std::uint64_t{0});
      continue;
    }
    out.push_back(o.size());
    out.push_back(apart_[c].size());
    for (const auto& [m, k] : apart_[c]) out.push_back(m), out.push_back(k);
    for (MsgId m : o) {
      const Message& x = msg(m);
      out.push_back(m);
      out.push_back(x.value);
      out.push_back(x.rmw_source);
      out.push_back(x.after);
      out.push_back(x.known.size());
      out.insert(x.known.begin(), x.known.end());
      op::encode(x.released, out, dead_slots);
    }
  }
}

}  // namespace redscope::op
