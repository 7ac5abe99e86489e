// herd7's cat language in full: the syntax tree of a model file, as herd7
// 7.58 defines it (herdtools7 lib/AST.mli; the grammar is lib/modelParser.mly
// and lib/modelLexer.mll). redscope's fast engines read the typed subset of
// model/cat.hpp; a file beyond it is parsed into this tree and run by the
// interpreter of herd/interp.hpp, one candidate execution at a time, as
// herd7 runs it (docs/model.md "herd7's cat language").
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "redscope/core/diagnostic.hpp"

namespace redscope::cat::herd {

// AST.op2. `Add` is `e ++ S` (add an element to a set); `Tuple` is `(a, b)`.
enum class Op2 : std::uint8_t { Union, Inter, Diff, Seq, Cartesian, Add, Tuple };
// AST.op1. `ToId` is `[S]`; `Comp` is `~e` (sets and relations).
enum class Op1 : std::uint8_t { Plus, Star, Opt, Comp, Inv, ToId };

// A pattern: one name (`x`, or `_`: nullopt), or a tuple of them
// (`(x, _, y)`; `()` is the empty tuple).
struct Pattern {
  bool tuple = false;
  std::vector<std::optional<std::string>> names;
};

// Where a node is: its file (shared by the file's nodes; a closure or a
// procedure runs far from where it was written) and line:col.
struct Where {
  std::shared_ptr<const std::string> file;
  SourceLoc loc;
};

struct Exp;
using ExpPtr = std::unique_ptr<Exp>;

// `pat = exp`, one binding of a `let`, `let rec` or `and` list. A function
// binding `let f(x, y) = e` is `f = fun (x, y) -> e`, as herd7's parser
// makes it (the Fun node carries the name).
struct Binding {
  Where at;
  Pattern pat;
  ExpPtr exp;
};

// `if "v" ...`, `variant "v"`, `not v`, `v1 && v2`, `v1 || v2`.
struct VariantCond {
  enum class Kind : std::uint8_t { Variant, Not, And, Or } kind = Kind::Variant;
  std::string name;  // Variant
  std::unique_ptr<VariantCond> a, b;
};

// The condition of `if c then e1 else e2`.
struct Cond {
  enum class Kind : std::uint8_t { Eq, Subset, In, Variant } kind = Kind::Variant;
  ExpPtr a, b;  // Eq, Subset, In
  VariantCond variant;
};

// One `'tag -> e` clause of a match on tags.
struct Clause {
  std::string tag;
  ExpPtr exp;
};

// The element clause of a match on a set: `x ++ rest -> e` (EltRem) or
// `pre | x ++ post -> e` (PreEltPost); names are nullopt for `_`.
struct SetClause {
  bool pre_elt_post = false;
  std::optional<std::string> p1, p2, p3;  // EltRem: elt, rest; PreEltPost: pre, elt, post
  ExpPtr exp;
};

enum class ExpKind : std::uint8_t {
  Empty,        // 0
  Universe,     // _
  Tag,          // 'name
  Var,          // name
  Op1,          // op1 args[0]
  Op,           // op2 over args (Union, Inter, Seq, Tuple: n-ary; Diff, Cartesian, Add: two)
  App,          // args[0] applied to args[1]
  Bind,         // let bindings in body
  BindRec,      // let rec bindings in body
  Fun,          // fun pat -> body (name: the let-bound name, or "*fun*")
  ExplicitSet,  // { args }
  Match,        // match args[0] with clauses [|| _ -> deflt] end
  MatchSet,     // match args[0] with {} -> body || set_clause end
  Try,          // try args[0] with args[1]
  If,           // if cond then args[0] else args[1]
};

struct Exp {
  ExpKind kind = ExpKind::Empty;
  Where at;
  Op1 op1 = Op1::Plus;
  Op2 op2 = Op2::Union;
  std::string name;  // Var, Tag, Fun
  std::vector<ExpPtr> args;
  std::vector<Binding> bindings;  // Bind, BindRec
  ExpPtr body;                    // Bind, BindRec, Fun; MatchSet: the `{} ->` case
  Pattern pat;                    // Fun
  std::vector<Clause> clauses;    // Match
  ExpPtr deflt;                   // Match: `_ -> e`, or null
  SetClause elt;                  // MatchSet
  Cond cond;                      // If
};

enum class TestKind : std::uint8_t { Acyclic, Irreflexive, Empty };
// Check: forbids when it fails. UndefinedUnless (`undefined_unless`): a
// failure makes the execution undefined. Flagged (`flag`): raises its name
// when the test holds. Assert (`assert`): a failure is an error of the model.
enum class TestType : std::uint8_t { Check, UndefinedUnless, Flagged, Assert };

// `[flag|assert|undefined_unless] [~]acyclic|irreflexive|empty e [as name]`.
struct AppTest {
  Where at;
  TestType type = TestType::Check;
  bool negated = false;  // `~empty e`: holds when e is not empty
  TestKind kind = TestKind::Acyclic;
  ExpPtr exp;
  std::optional<std::string> name;
};

struct Program;

enum class InsKind : std::uint8_t {
  Let,        // let bindings
  Rec,        // let rec bindings [when test]
  InsMatch,   // match exp with 'tag -> ins... || _ -> ins... end
  Test,       // a check
  UnShow,     // unshow names
  Show,       // show names
  ShowAs,     // show exp as name
  Include,    // include "file"
  Procedure,  // procedure [rec] name(pat) = body end
  Call,       // call name arg [as name]
  Enum,       // enum Name = 'a || 'b
  Forall,     // forall x in exp do body end
  Debug,      // debug exp
  WithFrom,   // with x from exp
  Events,     // instructions/default Name[args] (bell files)
  IfVariant,  // if variant-cond body [else else_body] end
};

struct Ins {
  InsKind kind = InsKind::Let;
  Where at;
  std::vector<Binding> bindings;   // Let, Rec
  std::optional<AppTest> test;     // Test; Rec: its `when` test
  ExpPtr exp;                      // InsMatch, ShowAs, Call (argument), Forall, Debug, WithFrom
  std::vector<std::string> names;  // Show, UnShow; Enum: its tags
  // ShowAs: the shown name; Include: the file; Procedure, Call: the
  // procedure; Enum: the type; Forall, WithFrom: the variable; Events: the set.
  std::string name;
  std::optional<std::string> as;  // Call: `as name` (the name checks inside take)
  Pattern pat;                    // Procedure: its formals
  bool rec = false;               // Procedure: `procedure rec`
  bool is_default = false;        // Events: `default` rather than `instructions`
  std::vector<ExpPtr> args;       // Events
  std::vector<Ins> body;          // Procedure, Forall, IfVariant (then)
  std::vector<Ins> else_body;     // IfVariant
  VariantCond variant;            // IfVariant
  std::vector<std::pair<std::string, std::vector<Ins>>> clauses;  // InsMatch
  std::optional<std::vector<Ins>> deflt;                          // InsMatch: `_ -> ...`
  // Include: the file as the loader found it (null until resolved; a file
  // included again is not read again: `included` is null there too, and
  // `repeat` set).
  std::shared_ptr<const Program> included;
  bool repeat = false;
};

// A model file: `[arch] "title"` or a bare name, `catdep`, instructions.
struct Program {
  std::string file;   // as diagnostics name it
  std::string key;    // its identity (a canonical path, or "builtin:NAME")
  std::string arch;   // the first word when two head the file (herd's identity), else ""
  std::string title;  // the title ("" when none)
  bool catdep = false;
  std::vector<Ins> body;
};

}  // namespace redscope::cat::herd
