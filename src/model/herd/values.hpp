// The values of herd7's cat interpreter (herdtools7 lib/interpreter.ml,
// module V) and their environment: private to src/model/herd.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "redscope/core/bitrel.hpp"
#include "redscope/core/diagnostic.hpp"
#include "redscope/model/herd/ast.hpp"
#include "redscope/model/herd/interp.hpp"

namespace redscope::cat::herd::detail {

// interpreter.ml `typ`: the type of a value, as errors print it (pp_typ).
struct Type {
  enum class K : std::uint8_t {
    Empty,
    Event,
    Events,
    Pair,
    Rel,
    ClassRel,
    Tag,
    Clo,
    Proc,
    Set,
    Tuple
  };
  K k = K::Empty;
  std::string tag;        // Tag: the enum's name
  std::vector<Type> elt;  // Set: one element type; Tuple: the components
};
// eq_type: the common type of t1 and t2 ({} unifies with sets and
// relations), or nothing.
std::optional<Type> unify(const Type& a, const Type& b);
std::string to_string(const Type& t);  // pp_typ

struct Value;
struct Closure;
struct Procedure;
struct Universe;
using Values = std::vector<Value>;
// A relation over classes (event sets): sorted, without duplicates.
using ClassPair = std::pair<EventBits, EventBits>;
using ClassRel = std::vector<ClassPair>;
// A built-in function (add_primitives); throws PrimError.
using PrimFn = Value (*)(const Universe&, const Value&);

struct PrimError {
  std::string msg;
};

// interpreter.ml `V.v`, without TransRel (an optimisation: `as_transitive`
// is the identity here, and `r+` is computed at once).
enum class VK : std::uint8_t {
  Empty,  // 0: the polymorphic empty set
  Unv,    // _: the universe
  Event,
  Pair,
  Set,
  Rel,
  ClassRel,
  Tag,
  ValSet,
  Tuple,
  Clo,
  Prim,
  Proc
};

struct Value {
  VK kind = VK::Empty;
  std::size_t a = 0, b = 0;               // Event: a; Pair: (a, b); Prim, Clo: an id
  EventBits set;                          // Set
  std::shared_ptr<const BitRel> rel;      // Rel
  std::shared_ptr<const ClassRel> crel;   // ClassRel
  std::string tag_type, tag;              // Tag: its enum and its name; Prim: name in tag
  std::shared_ptr<const Type> elt;        // ValSet: the element type
  std::shared_ptr<const Values> elems;    // ValSet (sorted by compare, unique), Tuple
  std::shared_ptr<const Closure> clo;     // Clo
  std::shared_ptr<const Procedure> proc;  // Proc
  PrimFn prim = nullptr;                  // Prim
};

Type type_of(const Value& v);  // type_val (Unv has none: callers discard it)

// ValOrder.compare: a total order on the values sets may hold (tags by
// name, events by index, sets and relations as sorted sequences, closures
// by creation). Throws CompareError on values that cannot be compared.
struct CompareError {
  std::string msg;
};
int compare(const Value& x, const Value& y);
// A ValSet of type `t` with `vs` sorted and deduplicated.
Value make_valset(Type t, Values vs);

// A lazily evaluated binding (herd binds `let` names to OCaml lazy values:
// an error is raised where the name is first used, and never if unused).
struct Env;
struct Thunk;
struct Node {
  std::string name;
  std::shared_ptr<Thunk> val;
  std::shared_ptr<const Node> next;
  // Environments are long chains (a node's thunk holds the environment it
  // was bound in, its closures theirs): released one by one, not by
  // recursion, which overflowed the stack at 5,000 includes of cross.cat.
  ~Node();
};
using Enums = std::map<std::string, std::vector<std::string>>;
using Tags = std::map<std::string, std::string>;
// interpreter.ml `V.env`: values (innermost first), enums, tags.
struct Env {
  std::shared_ptr<const Node> vals;
  std::shared_ptr<const Enums> enums;
  std::shared_ptr<const Tags> tags;
};
Env bind_name(const Env& e, const std::string& name, std::shared_ptr<Thunk> t);
std::shared_ptr<Thunk> ready(Value v);
const std::shared_ptr<Thunk>* lookup(const Env& e, const std::string& name);

struct Thunk {
  std::optional<Value> v;
  std::exception_ptr err;  // forcing failed: raise again (OCaml Lazy)
  bool busy = false;
  // Pending: `exp` in `env`, or component `index` of `src` (a tuple pattern).
  const Exp* exp = nullptr;
  Env env;
  std::shared_ptr<Thunk> src;
  std::size_t index = 0;
  Where at;
};

// A group of functions bound by one `let rec`: each closure of the group
// sees `base` and every function of the group (env_rec_funs), built at
// application time so that no closure owns itself.
struct RecGroup {
  Env base;
  std::vector<std::pair<std::string, const Exp*>> funs;
  std::vector<std::size_t> ids;  // of each function's closure (ValOrder)
};
struct Closure {
  const Exp* fun = nullptr;  // a Fun node
  Env env;
  std::shared_ptr<const RecGroup> group;  // null: not recursive
};
struct Procedure {
  const Ins* ins = nullptr;  // a Procedure instruction
  Env env;
};

// Errors of the model that `try` catches (herd's Misc.Exit).
[[noreturn]] void fail_at(const Where& at, std::string msg);
// Errors `try` does not catch: a failing assert, a limit of redscope.
class FatalError : public InputError {
 public:
  using InputError::InputError;
};
[[noreturn]] void fatal_at(const Where& at, std::string msg);

// Event sets over n events.
inline std::size_t words_of(std::size_t n) { return (n + 63) / 64; }
inline bool has_bit(const EventBits& s, std::size_t i) { return (s[i / 64] >> (i % 64)) & 1U; }
inline void set_bit(EventBits& s, std::size_t i) { s[i / 64] |= 1ULL << (i % 64); }
bool bits_empty(const EventBits& s);
bool bits_subset(const EventBits& a, const EventBits& b);
int compare_bits(const EventBits& a, const EventBits& b);
int compare_rel(const BitRel& a, const BitRel& b);

// The run's view of the execution (ks in interpreter.ml).
struct Universe {
  std::size_t n = 0;
  EventBits all;  // evts
  BitRel id, unv;
  const Execution* x = nullptr;
  const Budget* budget = nullptr;
};

Value v_set(EventBits s);
Value v_rel(BitRel r);
Value v_empty();
Value v_unv();
// as_rel / as_set of interpreter.ml with PrimError on others (prim_as_*).
BitRel prim_as_rel(const Universe& u, const Value& v);
EventBits prim_as_set(const Universe& u, const Value& v);
ClassRel prim_as_classrel(const Value& v);
BitRel cartesian(const Universe& u, const EventBits& a, const EventBits& b);
BitRel set_to_rln(const Universe& u, const EventBits& s);
bool classrel_acyclic(const ClassRel& r);

// add_primitives: the built-in functions, by name.
struct PrimDef {
  const char* name;
  PrimFn fn;
};
const std::vector<PrimDef>& primitives();

}  // namespace redscope::cat::herd::detail
