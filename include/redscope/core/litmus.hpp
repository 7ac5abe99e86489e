// The litmus-test AST produced by every frontend (DESIGN §1: LitmusTest).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "redscope/core/diagnostic.hpp"
#include "redscope/core/types.hpp"

namespace redscope {

// The program of a test whose semantics is not an event graph (a dialect's
// own, docs/architecture.md "Semantics"): owned by the semantics that reads
// it, which alone knows its type; core only carries it.
struct BuiltinModel;  // core/model.hpp

struct Program {
  Program() = default;
  Program(const Program&) = default;
  Program& operator=(const Program&) = default;
  virtual ~Program() = default;
};

// A literal as written ("1", "-0.0", "0x3c00"); its bits depend on the type
// it is read at (see literal_bits).
struct Literal {
  std::string text;
  SourceLoc loc;
};

// A register, an immediate, or a memory location named by an operand.
struct Operand {
  enum class Kind : std::uint8_t { Reg, Imm, Loc };
  Kind kind = Kind::Imm;
  std::string name;         // register or location name
  std::int64_t value = 0;   // Imm: the bits at the instruction's type
  std::int64_t offset = 0;  // Loc: byte offset, as in [x+4]
  SourceLoc loc;
  std::string vname;  // Loc, after alias resolution: the virtual address written,
                      // when `name` is its memory's (events/aliases.hpp)
};

// `y @ generic aliases x;` (Dat3M) or `.global y physically aliases x;`
// (NVIDIA): y is another virtual address of x's memory. `s @ surface aliases
// x;` or `.surfref s virtually aliases x;`: s names x's own address, for
// accesses through the surface (texture, constant) proxy.
struct AliasDecl {
  std::string name;
  std::string target;
  Proxy proxy = Proxy::Generic;  // Generic: a new virtual address
  SourceLoc loc;
};

enum class InstrKind : std::uint8_t {
  Load,        // ld   dst, [a]
  Store,       // st   [a], v
  Atom,        // atom dst, [a], v{, v2}
  Red,         // red  [a], v
  Fence,       // fence.sem.scope / membar
  ProxyFence,  // fence.proxy.{alias,surface,texture,constant,async}
  BulkReduce,  // multimem.cp.reduce.async.bulk
  BulkCommit,  // cp.async.bulk.commit_group
  BulkWait,    // cp.async.bulk.wait_group{.read} N
  Setp,        // setp.cmp.type p, a, b
  Barrier,     // bar.cta.sync / bar.cta.arrive
  Local,       // register-only arithmetic: ld r, v (move), add/sub/mul/div, createpolicy
  Branch,      // beq/bne/blt/bgt/ble/bge a, b, LABEL
  Goto,        // goto LABEL
  Label,       // LABEL:
};

// Read-modify-write and local arithmetic operators.
enum class RmwOp : std::uint8_t {
  Add,
  Sub,
  Mul,
  Div,
  And,
  Or,
  Xor,
  Inc,
  Dec,
  Min,
  Max,
  Exch,
  Cas,
  Mov,
  // herd7's C `__atomic_add_unless(x, a, u)` (frontend/c): srcs {a, u}; the
  // write of old + a exists only when old != u (a read only otherwise).
  AddUnless
};
std::string_view to_string(RmwOp op);

enum class CmpOp : std::uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

// Barrier operands follow Dat3M's convention `bar.cta.sync a{, b{, q}}`:
// `a` and `b` together name the barrier (b may be a register); `q` is the
// quorum, the number of arrivals after which waiting threads may pass. Without
// `q` every executed barrier with the same name in the CTA must arrive.
struct BarrierSpec {
  bool arrive_only = false;  // bar.cta.arrive: counts towards the quorum, never waits
  Operand id;
  std::optional<Operand> logical_id;
  std::optional<std::int64_t> quorum;
};

// sured.{b,p}.op.geom.ctype.clamp [a, {x, y, z, w}], c (seed ptx-sured.txt).
enum class SurfaceClamp : std::uint8_t { Trap, Clamp, Zero };
// What a sured does once its address is resolved (events/surfaces.hpp).
enum class SuredEffect : std::uint8_t { Access, Drop, Trap, Undefined };
struct SuredSpec {
  bool byte_addressing = true;  // .b: x is a byte offset; .p: a sample index
  unsigned geom = 1;            // .1d .2d .3d
  SurfaceClamp clamp = SurfaceClamp::Trap;
  std::string surface;                       // the surface, or "" when named by `handle`
  std::optional<Operand> handle;             // indirect: a .u64 register holding a surface
  std::vector<Operand> coords;               // as written (1, 2 or 4); past the geometry: ignored
  DataType ctype = DataType::U32;            // as written (.b32/.b64 read per the format)
  SuredEffect effect = SuredEffect::Access;  // set at expansion
  std::string reason;                        // Undefined: why
};

// multimem.cp.reduce.async.bulk.global.shared::cta.bulk_group.op{.noftz}.type
// [dst], [src], size (seed ptx-multimem-cp-reduce-async-bulk.txt), and the
// bulk async-group instructions.
struct BulkSpec {
  Operand dst, src;                   // Loc operands: a multimem range, a .shared::cta buffer
  std::int64_t size = 0;              // bytes
  std::int64_t wait = 0;              // BulkWait: N
  bool read_only = false;             // BulkWait: .read
  std::vector<std::string> replicas;  // BulkReduce, at expansion: each GPU's copy of dst
};

struct Instruction {
  InstrKind kind = InstrKind::Local;
  SourceLoc loc;
  std::string text;  // source text of the instruction, for reports
  Sem sem = Sem::Weak;
  Scope scope = Scope::Sys;
  Space space = Space::Generic;
  Proxy proxy = Proxy::Generic;           // memory accesses: the path they take
  ProxyFence fenced = ProxyFence::Alias;  // ProxyFence: what it orders
  // ProxyFence .async: the state space it is restricted to (.async.global,
  // .async.shared::cta, .async.shared::cluster); none: every state space.
  std::optional<Space> fence_space;
  DataType type = DataType::S32;
  RmwOp op = RmwOp::Mov;
  CmpOp cmp = CmpOp::Eq;
  std::optional<Operand> dst;   // destination register (scalar forms)
  std::vector<Operand> dsts;    // destination registers of vector forms {r0, r1}
  std::optional<Operand> addr;  // memory location
  std::vector<Operand> srcs;    // value operands in source order (one per vector element)
  unsigned vec = 1;             // .v2/.v4/.v8
  bool noftz = false;           // .noftz
  bool cache_hint = false;      // .L2::cache_hint (a performance hint: no effect on outcomes)
  std::optional<Operand> cache_policy;  // its cache-policy operand
  std::optional<Operand> guard;         // @p / @!p predicate
  bool guard_negated = false;
  std::string label;  // Branch/Goto target, or Label name
  BarrierSpec barrier;
  std::optional<SuredSpec> sured;  // Red through the surface proxy
  std::optional<BulkSpec> bulk;    // BulkReduce, BulkCommit, BulkWait
  // A source-level test's access or fence (frontend/c): the C/C++ order and
  // scope written, carried to its events (both halves of an RMW); `sem` and
  // `scope` hold their PTX reading (docs/model.md "The scoped C++ model").
  std::optional<SourceOrder> source;
};

struct ThreadCode {
  std::string name;  // "P0"
  Placement place;
  SourceLoc loc;
  std::vector<Instruction> code;
  std::map<std::string, std::size_t> labels;  // label → index into code
  // A thread a compiler made `code` from (CUDA tests, docs/cuda.md): its
  // source as written, and the compiler's output it was read from (PTX for
  // --show-ptx and reports); both empty otherwise.
  std::string source_text;
  std::string compiled;
};

// `x = 1;`, `P0:r1 = 1;`, `global f32 x = 1.5;` or `global f32 v[4] = {0,0,0,0};`
// in the init block.
struct InitEntry {
  std::optional<ThreadId> thread;  // set for registers
  std::string name;
  std::optional<DataType> type;      // declared element type
  std::optional<Space> space;        // declared state space (global / shared)
  std::optional<std::size_t> count;  // array length for `name[N]`
  std::vector<Literal> values;       // one per element (one for scalars)
  SourceLoc loc;
  // `surface u32 s[W][H][D] = {...};`: a surface (seed ptx-sured.txt) of
  // width W, height H, depth D samples (dims holds the ones written: 1d, 2d
  // or 3d), each sample a cell s[x + W*(y + H*z)]; `type` is the sample
  // format: u32/u64 (UINT data) or s32/s64 (SINT data).
  bool surface = false;
  std::vector<std::size_t> dims;
  // `multimem(0, 1) u32 m[4]`: a multimem range with a replica on each listed
  // GPU (the cells m_gpu0[i], m_gpu1[i]); a thread's own accesses to m reach
  // its GPU's replica.
  std::vector<int> replicas;
};

// A term of the final condition.
struct CondTerm {
  enum class Kind : std::uint8_t { Reg, Loc, Const };
  Kind kind = Kind::Const;
  ThreadId thread = 0;
  std::string name;  // register, or memory cell ("x", "v[1]")
  Literal value;     // Const
  SourceLoc loc;
};

// How deep `~`/`not` and parentheses may nest in a condition: every walk
// over a condition recurses, so the input must not choose the depth. Chains
// of /\ and \/ (&& and ||) are one n-ary node each and add no depth.
inline constexpr int kMaxConditionDepth = 256;

struct CondExpr {
  enum class Kind : std::uint8_t { True, False, And, Or, Not, Cmp };
  Kind kind = Kind::True;
  std::vector<CondExpr> kids;
  CmpOp cmp = CmpOp::Eq;
  CondTerm lhs, rhs;
};

// exists / forall / ~exists are herd's; permit, assert and check are the
// claims of NVIDIA's .test files: permit and check hold when some allowed
// execution satisfies the condition, assert when every one does. A test with
// a claim carries its own expectation: the claim must hold (is_claim).
enum class Quantifier : std::uint8_t { Exists, Forall, NotExists, Permit, Assert, Check };
inline bool is_claim(Quantifier q) {
  return q == Quantifier::Permit || q == Quantifier::Assert || q == Quantifier::Check;
}

struct LitmusTest {
  std::string file;
  std::string arch;  // "PTX"
  std::string name;
  std::map<std::string, std::string> metadata;  // key=value header lines
  int target_sm = 90;                           // Target=sm_NN
  std::vector<InitEntry> init;
  std::vector<AliasDecl> aliases;
  std::vector<ThreadCode> threads;
  std::vector<CondTerm> locations;  // `locations [...]`
  std::optional<CondExpr> filter;
  Quantifier quantifier = Quantifier::Exists;
  CondExpr condition;
  std::string condition_text;
  SourceLoc condition_loc;
  // A program its dialect's semantics runs instead of `threads` (which then
  // only name its cores); null for event-graph tests.
  std::shared_ptr<const Program> program;
  // The model its dialect checks it against by default (the registry's row
  // sets it); null: the model its target selects (model_for_test).
  const BuiltinModel* default_model = nullptr;
};

// The location holding GPU g's replica of multimem range `range` ("m_gpu1"):
// the name conditions use for it.
std::string replica_name(const std::string& range, int gpu);

// Where `t` first uses proxies (an alias declaration, a non-generic access
// or a proxy fence), if it does: for engines that do not model them.
std::optional<SourceLoc> first_proxy_use(const LitmusTest& t);

std::string_view to_string(Quantifier q);
std::string_view to_string(CmpOp c);

}  // namespace redscope
