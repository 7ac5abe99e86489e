#include "engine/machine/op_paths.hpp"

namespace redscope::op {

Paths::Paths(const Skeleton& sk) {
  auto new_slot = [&](std::size_t cell) {
    slot_cell_.push_back(cell);
    return slot_cell_.size() - 1;
  };
  for (const auto& [loc, init] : sk.init_write) {
    cell_index_.emplace(loc, cell_index_.size());
    cell_addrs_.emplace_back();
  }
  for (std::size_t c = 0; c < cell_addrs_.size(); ++c) every_.push_back(new_slot(c));
  std::vector<std::tuple<Proxy, std::size_t>> cached;  // (P, address) accessed through P
  for (EventId e = 0; e < sk.size(); ++e) {
    const Event& x = sk.ev(e);
    if (!x.is_memory()) continue;
    const std::size_t c = cell_index_.at(x.loc);
    const std::string vloc = x.vloc.empty() ? x.loc : x.vloc;
    auto [it, fresh] = addr_index_.emplace(std::pair{x.loc, vloc}, addr_cell_.size());
    if (fresh) {
      addr_cell_.push_back(c);
      addr_space_.push_back(sk.loc_spaces.at(x.loc));
      const auto owner = sk.shared_owner.find(x.loc);
      addr_owner_.push_back(
          owner == sk.shared_owner.end() ? std::nullopt : std::optional<Placement>(owner->second));
      cell_addrs_[c].push_back(it->second);
      generic_.push_back(new_slot(c));
    }
    access_.emplace(&x, Access{c, it->second});
    if (x.proxy != Proxy::Generic && !x.is_init) cached.emplace_back(x.proxy, it->second);
  }
  for (const auto& [proxy, a] : cached)
    for (const Placement& p : sk.placement)
      if (!cache_.count({proxy, a, p.gpu, p.cta}))
        cache_.emplace(std::tuple{proxy, a, p.gpu, p.cta}, new_slot(addr_cell_[a]));
}

Slot Paths::own(const Event& e, const Placement& p) const {
  const std::size_t a = address(e);
  if (e.proxy == Proxy::Generic || e.is_init) return generic_[a];
  return cache_.at({e.proxy, a, p.gpu, p.cta});
}

std::vector<Slot> Paths::bounds(const Event& e, const Placement& p) const {
  if (e.proxy == Proxy::Generic || e.is_init) return {generic_[address(e)], every_[cell(e)]};
  return {own(e, p)};
}

bool Paths::in_space(std::size_t a, std::optional<Space> space, const Placement& p) const {
  if (!space) return true;
  const bool global = addr_space_[a] == Space::Global;
  if (*space == Space::Global) return global;
  if (global) return false;
  if (*space == Space::SharedCluster) return true;
  const std::optional<Placement>& o = addr_owner_[a];
  return o && o->gpu == p.gpu && o->cta == p.cta;
}

Proxy Paths::proxy_of(ProxyFence k) {
  switch (k) {
    case ProxyFence::Surface: return Proxy::Surface;
    case ProxyFence::Texture: return Proxy::Texture;
    case ProxyFence::Constant: return Proxy::Constant;
    case ProxyFence::Async: return Proxy::Async;
    case ProxyFence::Alias: break;
  }
  return Proxy::Generic;
}

}  // namespace redscope::op
