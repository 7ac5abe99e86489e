// Values of herd7's cat interpreter: types, the order of values in sets,
// environments (herdtools7 lib/interpreter.ml, modules V and ValOrder).
#include "model/herd/values.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace redscope::cat::herd::detail {

using K = Type::K;

// eq_type: {} unifies with sets of any kind and with relations.
std::optional<Type> unify(const Type& a, const Type& b) {
  const auto rel_like = [](K k) { return k == K::Events || k == K::Rel || k == K::ClassRel; };
  if (a.k == K::Empty && (b.k == K::Set || rel_like(b.k))) return b;
  if (b.k == K::Empty && (a.k == K::Set || rel_like(a.k))) return a;
  if (a.k != b.k) return std::nullopt;
  switch (a.k) {
    case K::Tag:
      if (a.tag != b.tag) return std::nullopt;
      return a;
    case K::Set: {
      auto e = unify(a.elt[0], b.elt[0]);
      if (!e) return std::nullopt;
      return Type{K::Set, {}, {*e}};
    }
    case K::Tuple: {
      if (a.elt.size() != b.elt.size()) return std::nullopt;
      Type t{K::Tuple, {}, {}};
      for (std::size_t i = 0; i < a.elt.size(); ++i) {
        auto e = unify(a.elt[i], b.elt[i]);
        if (!e) return std::nullopt;
        t.elt.push_back(*e);
      }
      return t;
    }
    case K::Empty:  // (TEmpty, TEmpty) is not in eq_type
      return std::nullopt;
    default: return a;
  }
}

std::string to_string(const Type& t) {
  switch (t.k) {
    case K::Empty: return "{}";
    case K::Event: return "event";
    case K::Events: return "events";
    case K::Pair: return "pair";
    case K::Rel: return "rel";
    case K::ClassRel: return "classrel";
    case K::Tag: return t.tag;
    case K::Clo: return "closure";
    case K::Proc: return "procedure";
    case K::Set: return to_string(t.elt[0]) + " set";
    case K::Tuple: {
      std::string s = "(";
      for (std::size_t i = 0; i < t.elt.size(); ++i) s += (i ? " * " : "") + to_string(t.elt[i]);
      return s + ")";
    }
  }
  return "?";
}

Type type_of(const Value& v) {
  switch (v.kind) {
    case VK::Empty:
    case VK::Unv: return {K::Empty, {}, {}};
    case VK::Event: return {K::Event, {}, {}};
    case VK::Pair: return {K::Pair, {}, {}};
    case VK::Set: return {K::Events, {}, {}};
    case VK::Rel: return {K::Rel, {}, {}};
    case VK::ClassRel: return {K::ClassRel, {}, {}};
    case VK::Tag: return {K::Tag, v.tag_type, {}};
    case VK::ValSet: return {K::Set, {}, {*v.elt}};
    case VK::Clo:
    case VK::Prim: return {K::Clo, {}, {}};
    case VK::Proc: return {K::Proc, {}, {}};
    case VK::Tuple: {
      Type t{K::Tuple, {}, {}};
      for (const Value& e : *v.elems) t.elt.push_back(type_of(e));
      return t;
    }
  }
  return {};
}

bool bits_empty(const EventBits& s) {
  return std::all_of(s.begin(), s.end(), [](std::uint64_t w) { return w == 0; });
}

bool bits_subset(const EventBits& a, const EventBits& b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] & ~b[i]) return false;
  return true;
}

namespace {

// Some bit of `s` at position > i (words from w on, bits above i in w).
bool any_after(const std::uint64_t* s, std::size_t words, std::size_t w, unsigned bit) {
  const std::uint64_t above = bit == 63 ? 0 : (~0ULL << (bit + 1));
  if (s[w] & above) return true;
  for (std::size_t k = w + 1; k < words; ++k)
    if (s[k]) return true;
  return false;
}

// OCaml's Set.compare on the increasing sequences of two bit strings: at
// the first difference, the one holding the element is smaller unless the
// other has nothing after it.
int compare_words(const std::uint64_t* a, const std::uint64_t* b, std::size_t words, bool* differ,
                  bool* a_rest, bool* b_rest) {
  for (std::size_t w = 0; w < words; ++w) {
    const std::uint64_t d = a[w] ^ b[w];
    if (!d) continue;
    const unsigned bit = static_cast<unsigned>(__builtin_ctzll(d));
    *differ = true;
    *a_rest = any_after(a, words, w, bit);
    *b_rest = any_after(b, words, w, bit);
    return (a[w] >> bit) & 1U ? 1 : -1;  // 1: the element is a's
  }
  *differ = false;
  return 0;
}

template <class RowsA, class RowsB>
int compare_seq(std::size_t rows, std::size_t words, RowsA row_a, RowsB row_b) {
  for (std::size_t i = 0; i < rows; ++i) {
    bool differ = false, a_rest = false, b_rest = false;
    const int owner = compare_words(row_a(i), row_b(i), words, &differ, &a_rest, &b_rest);
    if (!differ) continue;
    // Later rows count as "after" too.
    for (std::size_t k = i + 1; k < rows; ++k) {
      for (std::size_t w = 0; w < words; ++w) {
        a_rest = a_rest || row_a(k)[w];
        b_rest = b_rest || row_b(k)[w];
      }
    }
    if (owner > 0) return b_rest ? -1 : 1;
    return a_rest ? 1 : -1;
  }
  return 0;
}

int cmp3(std::size_t x, std::size_t y) { return x < y ? -1 : x > y ? 1 : 0; }

bool is_emptyish(const Value& v) {
  switch (v.kind) {
    case VK::ValSet: return v.elems->empty();
    case VK::Rel: return v.rel->empty();
    case VK::Set: return bits_empty(v.set);
    case VK::ClassRel: return v.crel->empty();
    default: return false;
  }
}

bool set_like(VK k) { return k == VK::ValSet || k == VK::Rel || k == VK::Set || k == VK::ClassRel; }

int compare_classrel(const ClassRel& a, const ClassRel& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (int c = compare_bits(a[i].first, b[i].first)) return c;
    if (int c = compare_bits(a[i].second, b[i].second)) return c;
  }
  return cmp3(a.size(), b.size());
}

}  // namespace

int compare_bits(const EventBits& a, const EventBits& b) {
  const auto ra = [&](std::size_t) { return a.data(); };
  const auto rb = [&](std::size_t) { return b.data(); };
  return compare_seq(1, a.size(), ra, rb);
}

int compare_rel(const BitRel& a, const BitRel& b) {
  const auto ra = [&](std::size_t i) { return a.row(i); };
  const auto rb = [&](std::size_t i) { return b.row(i); };
  return compare_seq(a.size(), a.words(), ra, rb);
}

// ValOrder.compare (interpreter.ml): the empty value equals any empty set
// or relation; values of different kinds cannot be compared.
int compare(const Value& x, const Value& y) {
  if (x.kind == VK::Unv || y.kind == VK::Unv) throw CompareError{"Universe in compare"};
  if (x.kind == VK::Empty && y.kind == VK::Empty) return 0;
  if (x.kind == VK::Empty && set_like(y.kind)) return is_emptyish(y) ? 0 : -1;
  if (y.kind == VK::Empty && set_like(x.kind)) return is_emptyish(x) ? 0 : 1;
  if (x.kind == VK::Clo && y.kind == VK::Prim) return 1;
  if (x.kind == VK::Prim && y.kind == VK::Clo) return -1;
  if (x.kind == y.kind) {
    switch (x.kind) {
      case VK::Tag: return x.tag.compare(y.tag) < 0 ? -1 : x.tag == y.tag ? 0 : 1;
      case VK::Event: return cmp3(x.a, y.a);
      case VK::Pair: return x.a != y.a ? cmp3(x.a, y.a) : cmp3(x.b, y.b);
      case VK::Set: return compare_bits(x.set, y.set);
      case VK::Rel: return compare_rel(*x.rel, *y.rel);
      case VK::ClassRel: return compare_classrel(*x.crel, *y.crel);
      case VK::Clo:
      case VK::Prim: return cmp3(x.a, y.a);
      case VK::ValSet:
      case VK::Tuple: {
        const Values &a = *x.elems, &b = *y.elems;
        for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
          if (int c = compare(a[i], b[i])) return c;
        return cmp3(a.size(), b.size());
      }
      default: break;
    }
  }
  const Type tx = type_of(x), ty = type_of(y);
  if (unify(tx, ty) || (tx.k == ty.k && tx.k != K::Tag))
    throw CompareError{fmt::format("Sets of {} are illegal", to_string(tx))};
  throw CompareError{
      fmt::format("Heterogeneous set elements: types {} and {}", to_string(tx), to_string(ty))};
}

Value make_valset(Type t, Values vs) {
  std::sort(vs.begin(), vs.end(), [](const Value& a, const Value& b) { return compare(a, b) < 0; });
  vs.erase(std::unique(vs.begin(), vs.end(),
                       [](const Value& a, const Value& b) { return compare(a, b) == 0; }),
           vs.end());
  Value v;
  v.kind = VK::ValSet;
  v.elt = std::make_shared<const Type>(std::move(t));
  v.elems = std::make_shared<const Values>(std::move(vs));
  return v;
}

namespace {

// What a last owner releases, dismantled in a loop: each object popped is
// emptied of the pointers it holds (to the stacks) before it dies, so no
// destructor recurses more than one level.
class Reaper {
 public:
  void take(std::shared_ptr<const Node>& p) { push(nodes_, p); }
  void take(std::shared_ptr<Thunk>& p) { push(thunks_, p); }
  void take(Env& e) { take(e.vals); }
  void take(Value& v) {
    push(closures_, v.clo);
    push(procs_, v.proc);
    push(values_, v.elems);
  }
  void run() {
    while (step()) {}
  }

 private:
  template <class T>
  static void push(std::vector<std::shared_ptr<T>>& to, std::shared_ptr<T>& p) {
    if (p) to.push_back(std::move(p));
  }
  // The last owner of the top of `from` (mutable: no one else sees it).
  template <class T>
  static std::shared_ptr<T> pop(std::vector<std::shared_ptr<T>>& from) {
    std::shared_ptr<T> p = std::move(from.back());
    from.pop_back();
    return p;
  }
  template <class T>
  static auto& owned(const std::shared_ptr<T>& p) {
    return const_cast<std::remove_const_t<T>&>(*p);
  }
  bool step() {
    if (!nodes_.empty()) {
      auto p = pop(nodes_);
      if (p.use_count() == 1) {
        take(owned(p).next);
        take(owned(p).val);
      }
    } else if (!thunks_.empty()) {
      auto p = pop(thunks_);
      if (p.use_count() == 1) {
        take(p->env);
        take(p->src);
        if (p->v) take(*p->v);
      }
    } else if (!closures_.empty()) {
      auto p = pop(closures_);
      if (p.use_count() == 1) take(owned(p).env);
    } else if (!procs_.empty()) {
      auto p = pop(procs_);
      if (p.use_count() == 1) take(owned(p).env);
    } else if (!values_.empty()) {
      auto p = pop(values_);
      if (p.use_count() == 1)
        for (Value& v : owned(p)) take(v);
    } else {
      return false;
    }
    return true;
  }

  std::vector<std::shared_ptr<const Node>> nodes_;
  std::vector<std::shared_ptr<Thunk>> thunks_;
  std::vector<std::shared_ptr<const Closure>> closures_;
  std::vector<std::shared_ptr<const Procedure>> procs_;
  std::vector<std::shared_ptr<const Values>> values_;
};

}  // namespace

Node::~Node() {
  Reaper r;
  r.take(next);
  r.take(val);
  r.run();
}

Env bind_name(const Env& e, const std::string& name, std::shared_ptr<Thunk> t) {
  Env out = e;
  out.vals = std::make_shared<const Node>(Node{name, std::move(t), e.vals});
  return out;
}

std::shared_ptr<Thunk> ready(Value v) {
  auto t = std::make_shared<Thunk>();
  t->v = std::move(v);
  return t;
}

const std::shared_ptr<Thunk>* lookup(const Env& e, const std::string& name) {
  for (const Node* n = e.vals.get(); n; n = n->next.get())
    if (n->name == name) return &n->val;
  return nullptr;
}

void fail_at(const Where& at, std::string msg) {
  throw InputError(Diagnostic{at.file ? *at.file : std::string(), at.loc, std::move(msg)});
}

void fatal_at(const Where& at, std::string msg) {
  throw FatalError(Diagnostic{at.file ? *at.file : std::string(), at.loc, std::move(msg)});
}

Value v_set(EventBits s) {
  Value v;
  v.kind = VK::Set;
  v.set = std::move(s);
  return v;
}

Value v_rel(BitRel r) {
  Value v;
  v.kind = VK::Rel;
  v.rel = std::make_shared<const BitRel>(std::move(r));
  return v;
}

Value v_empty() { return Value{}; }

Value v_unv() {
  Value v;
  v.kind = VK::Unv;
  return v;
}

BitRel prim_as_rel(const Universe& u, const Value& v) {
  switch (v.kind) {
    case VK::Rel: return *v.rel;
    case VK::Empty: return BitRel(u.n, u.budget);
    case VK::Unv: return u.unv;
    default: throw PrimError{"argument mismatch"};
  }
}

EventBits prim_as_set(const Universe& u, const Value& v) {
  switch (v.kind) {
    case VK::Set: return v.set;
    case VK::Empty: return EventBits(words_of(u.n), 0);
    case VK::Unv: return u.all;
    default: throw PrimError{"argument mismatch"};
  }
}

ClassRel prim_as_classrel(const Value& v) {
  switch (v.kind) {
    case VK::ClassRel: return *v.crel;
    case VK::Empty: return {};
    default: throw PrimError{"argument mismatch"};
  }
}

BitRel cartesian(const Universe& u, const EventBits& a, const EventBits& b) {
  BitRel r(u.n, u.budget);
  for (std::size_t i = 0; i < u.n; ++i)
    if (has_bit(a, i)) std::copy(b.begin(), b.end(), r.row(i));
  return r;
}

BitRel set_to_rln(const Universe& u, const EventBits& s) {
  BitRel r(u.n, u.budget);
  for (std::size_t i = 0; i < u.n; ++i)
    if (has_bit(s, i)) r.set(i, i);
  return r;
}

// ClassRel.is_acyclic: no cycle among the classes (a self loop is one).
bool classrel_acyclic(const ClassRel& r) {
  std::vector<const EventBits*> nodes;
  for (const auto& [a, b] : r) {
    nodes.push_back(&a);
    nodes.push_back(&b);
  }
  const auto less = [](const EventBits* x, const EventBits* y) { return compare_bits(*x, *y) < 0; };
  std::sort(nodes.begin(), nodes.end(), less);
  nodes.erase(std::unique(nodes.begin(), nodes.end(),
                          [](const EventBits* x, const EventBits* y) { return *x == *y; }),
              nodes.end());
  const auto index = [&](const EventBits& s) {
    return static_cast<std::size_t>(std::lower_bound(nodes.begin(), nodes.end(), &s, less) -
                                    nodes.begin());
  };
  BitRel g(nodes.size());
  for (const auto& [a, b] : r) g.set(index(a), index(b));
  return g.acyclic();
}

}  // namespace redscope::cat::herd::detail
