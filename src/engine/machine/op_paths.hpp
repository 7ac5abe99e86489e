// The paths by which the operational machine's threads reach memory, and
// where a thread keeps what it knows of each (PTX ISA §8.6 "Proxies" and
// §8.9.5; NVIDIA's mixed-proxy model, NVlabs/mixedproxy).
//
// One physical cell can be reached through several *paths*: the generic
// proxy at each of its virtual addresses (a virtual alias is another
// address of the same memory), and the surface, texture, constant and async
// proxies, each through a cache of its own in every CTA (an SM's texture
// and surface units, the async copy engine). A thread's knowledge of a cell
// is therefore kept in *slots*, one per path it may be known by:
//
// - generic(a): known on the generic path at virtual address a. Generic
//   knowledge is the common currency: it travels with every synchronization
//   and bounds every generic access to a;
// - every-address(c): known on the generic path at every virtual address of
//   cell c (put there by fence.proxy.alias, which reconciles the aliases);
// - cache(P, a, k): known in CTA k's proxy-P cache for address a. It travels
//   with synchronization like everything else, but only P accesses at a by
//   threads of CTA k consult it (another CTA has another cache).
//
// A proxy fence `fence.proxy.P` run in CTA k reconciles CTA k's P cache with
// the generic path in both directions: what the cache holds becomes generic,
// and what is generic (at each address, or at every address after an alias
// fence) becomes known to the cache. fence.proxy.alias reconciles the
// virtual addresses of one cell. A cp.async.bulk.wait_group does what
// fence.proxy.async does (the completion's implicit proxy fence).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "redscope/core/types.hpp"
#include "redscope/events/events.hpp"

namespace redscope::op {

using Slot = std::size_t;

class Paths {
 public:
  explicit Paths(const Skeleton& sk);

  std::size_t cells() const { return cell_addrs_.size(); }
  std::size_t addresses() const { return addr_cell_.size(); }
  std::size_t slots() const { return slot_cell_.size(); }
  const std::vector<std::size_t>& slot_cell() const { return slot_cell_; }

  // An access of the skeleton: its cell, and the virtual address it named.
  std::size_t cell(const Event& e) const { return access(e).cell; }
  std::size_t cell(const std::string& loc) const { return cell_index_.at(loc); }
  std::size_t address(const Event& e) const { return access(e).address; }

  // The slot an access's own knowledge goes to: what it writes, or observes.
  Slot own(const Event& e, const Placement& p) const;
  // The slots that bound an access: the messages it may read, or write after.
  std::vector<Slot> bounds(const Event& e, const Placement& p) const;

  // fence.proxy.K run by a thread placed at p, on the thread's view `v`
  // (a join per slot: `join(into, from)`). A fence restricted to a state
  // space (fence.proxy.async.global, .shared::cta, .shared::cluster)
  // reconciles the addresses of that space only (in_space).
  template <typename Join>
  void reconcile(ProxyFence k, std::optional<Space> space, const Placement& p, Join&& join) const {
    if (k == ProxyFence::Alias) {
      for (std::size_t a = 0; a < addresses(); ++a) join(every_[addr_cell_[a]], generic_[a]);
      return;
    }
    const Proxy proxy = proxy_of(k);
    for (std::size_t a = 0; a < addresses(); ++a) {
      if (!in_space(a, space, p)) continue;
      auto it = cache_.find({proxy, a, p.gpu, p.cta});
      if (it == cache_.end()) continue;
      join(generic_[a], it->second);  // the cache's contents become generic
      join(it->second, generic_[a]);  // and generic knowledge reaches the cache
      join(it->second, every_[addr_cell_[a]]);
    }
  }

 private:
  static Proxy proxy_of(ProxyFence k);
  // Whether address a's memory is in `space` as seen from a thread at p
  // (none: every space). PTX: "The memory ordering is limited only to
  // operations performed on objects in the state space specified".
  // .global: global memory; .shared::cluster: any shared memory (the
  // cluster's window holds every CTA's); .shared::cta: the shared memory of
  // p's own CTA (the one whose .shared::cta window reaches it).
  bool in_space(std::size_t a, std::optional<Space> space, const Placement& p) const;

  struct Access {
    std::size_t cell = 0, address = 0;
  };
  // Per memory event of the skeleton (found by its address: the machine
  // asks on every step, and names are strings).
  const Access& access(const Event& e) const { return access_.at(&e); }

  std::unordered_map<const Event*, Access> access_;
  std::map<std::string, std::size_t> cell_index_;
  std::map<std::pair<std::string, std::string>, std::size_t> addr_index_;
  std::vector<std::size_t> addr_cell_;                // per address, its cell
  std::vector<Space> addr_space_;                     // per address, its memory's state space
  std::vector<std::optional<Placement>> addr_owner_;  // per address: a shared cell's CTA
  std::vector<std::vector<std::size_t>> cell_addrs_;  // per cell, its addresses
  std::vector<Slot> generic_;                         // per address
  std::vector<Slot> every_;                           // per cell
  std::map<std::tuple<Proxy, std::size_t, int, int>, Slot> cache_;  // (P, address, gpu, cta)
  std::vector<std::size_t> slot_cell_;
};

}  // namespace redscope::op
