// A subset of herd7's cat language: the memory model as data. parse_cat()
// turns a model file into a Model (an AST of enum-kinded nodes, with every
// name resolved and typed); errors are located InputErrors. docs/model.md
// "The model file" lists the subset and the primitives an engine provides.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "redscope/core/diagnostic.hpp"
#include "redscope/core/input.hpp"
#include "redscope/core/model.hpp"
#include "redscope/model/herd/files.hpp"

namespace redscope::cat {

namespace herd {
struct Program;
}

// What an expression denotes: a set of events or a binary relation on them.
enum class Type : std::uint8_t { Set, Rel };

enum class Op : std::uint8_t {
  Ref,       // a primitive or a let-bound name (slot)
  Empty,     // 0: the empty relation
  Universe,  // _: every event
  Union,
  Inter,
  Diff,
  Seq,        // r ; s
  Cartesian,  // S * T
  Inverse,    // r^-1
  Plus,
  Star,
  Opt,
  Identity,  // [S]
  Domain,
  Range,
  Complement,  // ~S (sets only)
  IfVariant,   // if "variant" then a else b
};

// Union, Inter and Seq are n-ary (associative: a chain `a | b | c` is one
// node), Diff too (`a \ b \ c`: args[0] minus every other); Cartesian and
// IfVariant have two arguments, the unary operators one. parse_cat bounds
// every tree's height by kMaxNesting, so the recursive walks over it (the
// evaluators, to_text, explain) and the destructors stay shallow.
struct Expr {
  Op op = Op::Ref;
  Type type = Type::Rel;
  SourceLoc loc;
  int height = 1;        // nodes on the longest path down from here
  std::size_t slot = 0;  // Ref: which value
  std::string variant;   // IfVariant: the variant tested
  std::vector<std::unique_ptr<Expr>> args;
  // Set by parse_cat: a number of its own (0 .. Model::exprs - 1), and the
  // highest level of the slots it reads (see Slot; 0: static).
  std::size_t id = 0;
  int level = 0;
};

// Where a value comes from: an engine primitive or a let binding.
// Level: when an engine's value changes (0: with the executed events, 1: with
// rf, 2: per candidate); a binding's level is the highest it reads.
struct Slot {
  std::string name;
  Type type = Type::Rel;
  bool primitive = false;
  int level = 0;
};

// One `let` (rec = false, one binding) or `let rec ... and ...` group.
struct Let {
  bool rec = false;
  std::vector<std::size_t> slots;  // bound slots, in order
  std::vector<std::unique_ptr<Expr>> exprs;
};

enum class CheckKind : std::uint8_t { Acyclic, Irreflexive, Empty };

struct Check {
  CheckKind kind = CheckKind::Acyclic;
  bool negated = false;  // `~empty e`: holds when e is not empty
  bool flag = false;     // `flag ~empty e as NAME`: reported, never forbids
  std::string name;      // the `as` name (an axiom name), or "" when none
  SourceLoc loc;
  std::unique_ptr<Expr> expr;
};

// A statement in file order: a let group or a check.
struct Stmt {
  std::optional<Let> let;
  std::optional<Check> check;
  int level = 0;  // the highest level it reads
};

struct Model {
  std::string file;  // as named to parse_cat
  std::string title;
  std::vector<Slot> slots;  // primitives first, then let-bound names
  // The primitive slots ordered by name, for engines that fill primitives
  // by name (load_statics, a few hundred times per test): a binary search.
  std::vector<std::size_t> primitives_by_name;
  std::vector<Stmt> stmts;
  std::size_t exprs = 0;  // Expr nodes in stmts (their ids)
  // A model in herd7's full language beyond this subset (docs/model.md
  // "herd7's cat language"): its syntax tree, run by herd's interpreter on
  // each complete candidate (model/herd/interp.hpp); `stmts` is then empty
  // and `slots` too, so an engine that reads only those must refuse it
  // (require_typed below). `beyond` says what took it out of the subset.
  std::shared_ptr<const herd::Program> herd;
  std::string beyond;
  bool typed() const { return herd == nullptr; }
};

// Throws a located InputError when `m` is beyond the typed subset: `what`
// (an engine or an analysis) reads only that subset. The message names the
// construct that took the model out of it and the engine that runs it.
void require_typed(const Model& m, std::string_view what);

// The primitives an engine provides: name and type (docs/model.md). A
// primitive with `same_as` is another name of that one (Dat3M's
// `sync_fence` for `sf`): both names read one slot.
struct Primitive {
  std::string_view name;
  Type type;
  int level;                   // see Slot
  std::string_view same_as{};  // "": a value of its own
};
const std::vector<Primitive>& ptx_primitives();

// What an engine may assume of every consistent execution beyond what it
// evaluates, to search less (docs/model.md "Engine shortcuts"); each holds
// only while an enabled check of the model implies it, recognised by its
// definition (let-bound names opened), whatever its name.
struct Shortcuts {
  // A thread's own writes to one location are co-ordered in program order
  // (Coherence and SC-per-Location).
  bool own_writes_in_po = false;
  // Morally strong writes to one location are co-ordered (Coherence).
  bool ms_writes_ordered = false;
  // rf ∪ dep is acyclic: values are well founded, so static value sets hold.
  bool no_thin_air = false;
  std::string no_thin_air_check;  // the name of the check that ensures it ("": unnamed)
};
Shortcuts shortcuts(const Model& m, const std::function<bool(std::string_view)>& enabled);

// Parses `text` (named `file` in diagnostics) against `primitives`;
// `top_key` identifies the file for include cycles (its canonical path;
// `file` when empty).
Model parse_cat(std::string_view text, const std::string& file,
                const std::vector<Primitive>& primitives, const IncludeReader& include = {},
                const std::string& top_key = {});

// An expression as cat text, parenthesized where needed (for messages).
std::string to_text(const Model& m, const Expr& e);

// models/herd-stdlib.cat, built in and parsed once: the prelude of every
// model in herd7's full language (herd7 reads its stdlib.cat first).
std::shared_ptr<const herd::Program> herd_prelude();

// models/ptx.cat as built into the binary.
std::string_view builtin_ptx_model();
// The default built-in model, parsed once (immutable, safe to share between
// threads).
const Model& builtin_ptx();
// The cat file of a row of the model table (core/model.hpp), as built into
// the binary and parsed once (its variants are the engine's to turn on).
const Model& builtin_model(const BuiltinModel& model);
// The built-in model parsed anew with its `flag` checks named `flag` made
// requirements: its executions that raise the flag (`flag ~empty hrace as
// racy` becomes `~empty hrace`). None when no flag has that name.
std::optional<Model> with_flag_required(const BuiltinModel& model, std::string_view flag);
// A model's text as parse_cat reads it when it is in the subset, else as
// herd7's full language (model/herd/parse.hpp): Model::herd set. A file that
// neither reads is the error of the reading that got further (the subset's
// when the file keeps to the subset's syntax).
// `Reading::Herd` skips the subset: herd7's reading whatever the file holds
// (`redscope models` describes a file that is only a part of a model so).
enum class Reading : std::uint8_t { Auto, Herd };
Model parse_model(std::string_view text, const std::string& file, const IncludeReader& include = {},
                  const std::string& top_key = {}, Reading reading = Reading::Auto);

// A model given as text (the playground's cat editor, the module's
// model_text): its `include "name"` reads a model built into the binary
// (models/<name>: ptx.cat, herd-stdlib.cat, ...), as herd7's libdir; nothing
// is read from disk.
Model parse_model_builtin_includes(std::string_view text, const std::string& file);

// A model file read from `path`, each file through read_input: a regular
// file of at most `max_bytes`. `include "f"` is looked for next to the
// including file, next to the model file, in each of `include_dirs` (the
// CLI's -I DIR, then $REDSCOPE_CATPATH's folders), then among the models
// built into the binary.
Model load_cat(const std::string& path, std::size_t max_bytes = kDefaultMaxInputBytes,
               const std::vector<std::string>& include_dirs = {}, Reading reading = Reading::Auto);

}  // namespace redscope::cat
