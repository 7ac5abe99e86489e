// Where Z3 runs (docs/cli.md "Input limits", "The solver's process").
// Releasing a large Z3 context cannot be interrupted (Z3_del_context took
// 5-80 s on tests whose checks were interrupted at the deadline), nor can
// some of Z3's calls (an assertion's simplification), so a budget cannot be
// kept while a large context lives in redscope's process. A large test
// (small_for_process) gets a SolverProcess: a child forked from the thread
// that holds the expanded test (copy-on-write: nothing is parsed, copied or
// sent to start it), which builds its own context, serves requests (its
// answers streamed back through a socket in the small binary codec below)
// and ends with _exit, its context never released. The parent waits with
// poll() up to the test's deadline and kills it there, or past
// --max-memory, which takes no longer than the kernel needs to free its
// pages. A small test starts in redscope's process as before, for at most
// kInProcessSeconds (here_first; the query API's sessions likewise): a
// child starts cold (Z3 writes 25-30 MB of fresh tables for a context and
// its first solver, 50-110 ms of page faults on the machine of
// docs/performance.md), which would cost a suite of small tests several
// times its time. Past that it starts again in a solver process, with the
// same answer, so that what this process releases is what that time built.
//
// Why fork() is safe from a multithreaded redscope: after fork() the child
// has one thread, and a lock another thread held at that moment stays held
// in the child for ever. The child takes only locks that are the C
// library's (malloc, stdio and the loader's, which glibc resets in the
// child), its own budget's (a fresh Budget) and Z3's. Z3's global locks
// (its memory manager's, the symbol table's, the resource limits') are safe
// because no thread is in Z3 code when a thread forks: Z3 code in
// redscope's process runs only inside InProcessZ3 sections, and a fork
// waits until no section is open in another thread (new sections wait for
// it); a solver process never opens one (its sections are no-ops). Keep it
// so: every use of a z3:: object in redscope's process, its destruction
// included, belongs inside a section.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "redscope/core/budget.hpp"
#include "redscope/results/results.hpp"

namespace redscope::cat {
struct Model;
}

namespace redscope::detail {

// ---- in this process or in a child -------------------------------------------

// A section of Z3 code run in redscope's process (see above): forks wait
// until no other thread has one open. `brief`: an interrupt from the budget's
// watchdog, which does not wait for a fork that is waiting for sections to
// close (only for the fork() itself), so that a test's section it must
// interrupt can close. Nested sections of one thread are one.
class InProcessZ3 {
 public:
  explicit InProcessZ3(bool brief = false);
  ~InProcessZ3();
  InProcessZ3(const InProcessZ3&) = delete;
  InProcessZ3& operator=(const InProcessZ3&) = delete;

 private:
  bool open_;
};

// A small test's solver runs in this process for at most this long; past
// it, with time left on the test's budget, it starts again from scratch in
// a solver process (whose answer is the same: both start from a fresh
// context). The shipped suites' slowest test takes 0.35 s; what Z3 builds
// in this time is released in about as long again.
inline constexpr double kInProcessSeconds = 2;

// When an attempt that starts now ends: kInProcessSeconds from now.
std::chrono::steady_clock::time_point attempt_end();

// The budget of such an attempt: the test's memory cap, and a deadline at
// `until` or the test's, whichever comes first, kept by a watchdog of its
// own (which also passes on a stop of the test's budget, may be null).
class InProcessBudget {
 public:
  explicit InProcessBudget(const Budget* test,
                           std::chrono::steady_clock::time_point until = attempt_end());
  ~InProcessBudget();  // joins the watchdog
  InProcessBudget(const InProcessBudget&) = delete;
  InProcessBudget& operator=(const InProcessBudget&) = delete;
  const Budget* get() const { return &budget_; }
  // After a failure of the attempt: whether it ran out of its own time
  // only, with the test's budget not spent (then the work moves).
  bool moved() const;
  // Throws the test's budget error, or the attempt's memory error, if spent.
  void check_spent() const;

 private:
  const Budget* test_;
  Budget budget_;
  std::jthread watchdog_;
};

// here(budget) in this process, inside a section, under an InProcessBudget;
// if that runs out of time first, elsewhere(): the same work in a solver
// process, under the test's budget.
template <class Here, class Elsewhere>
auto here_first(const Budget* test, Here here, Elsewhere elsewhere) -> decltype(elsewhere()) {
  {
    const InProcessBudget attempt(test);
    try {
      const InProcessZ3 section;
      return here(attempt.get());
    } catch (const std::exception&) {
      if (!attempt.moved()) {
        attempt.check_spent();
        throw;
      }
    }
  }
  return elsewhere();
}

// Whether Z3 may run on this skeleton, or on every skeleton of this
// expansion, under model `m` in redscope's process: at most kSmallEvents
// events, at most kSmallPairs same-cell (read, write) and (write, write)
// pairs (the rf and co variables of the encoding, whose growth makes the
// context large), at most kSmallSkeletons skeletons, and a model of at most
// kSmallModelExprs expressions (each an n x n relation of terms). Every test
// of litmus/ and the Dat3M suite is small (at most 40 events and 71 pairs)
// under the built-in models (models/ptx.cat: 330 expressions) and Dat3M's
// (185, 307); 8 reductions of one cell are not (153 pairs), nor are 10
// threads storing to one cell (132), nor a model of 9,000 lets.
inline constexpr std::size_t kSmallEvents = 48;
inline constexpr std::size_t kSmallPairs = 96;
inline constexpr std::size_t kSmallSkeletons = 64;
inline constexpr std::size_t kSmallModelExprs = 512;
bool small_for_process(const Skeleton& sk, const cat::Model& m);
bool small_for_process(const Expansion& ex, const cat::Model& m);

// ---- the codec: unsigned LEB128 integers, length-prefixed strings --------

class WireOut {
 public:
  void u(std::uint64_t v);
  void b(bool v) { u(v ? 1 : 0); }
  void str(std::string_view s);
  // A string shared among witnesses (EdgeTexts): sent once, then by number,
  // so that the answer shares them as the engine did.
  void shared(const EdgeTexts::Item& s);
  void u64s(const std::vector<std::uint64_t>& v);
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
  std::unordered_map<const std::string*, std::uint64_t> shared_;
};

// Reads what a WireOut wrote; a truncated or malformed message throws
// std::runtime_error (a broken helper, an internal error).
class WireIn {
 public:
  explicit WireIn(std::string_view bytes) : p_(bytes) {}
  std::uint64_t u();
  bool b() { return u() != 0; }
  std::size_t size();  // a count, no larger than the bytes left could hold
  std::string str();
  EdgeTexts::Item shared();
  std::vector<std::uint64_t> u64s();
  bool done() const { return p_.empty(); }

 private:
  std::string_view p_;
  std::vector<EdgeTexts::Item> shared_;
};

void put(WireOut& w, const Witness& x);
Witness get_witness(WireIn& r);
// The outcomes an engine found, each with its witness.
using FoundOutcomes = std::map<std::vector<std::uint64_t>, Witness>;
void put(WireOut& w, const FoundOutcomes& found);
FoundOutcomes get_found(WireIn& r);

// ---- the process ----------------------------------------------------------

class SolverProcess {
 public:
  // Answers one request (`budget`: the child's own copy of the parent's,
  // null when the parent has none) with the reply's bytes; what it throws
  // is sent back and rethrown by call() as the same kind of exception.
  using Handler = std::function<std::string(WireIn& request, const Budget* budget)>;

  // Forks the child, which serves requests with `handler` until this object
  // is destroyed. `budget` (may be null): the deadline and memory cap the
  // parent's waits keep.
  SolverProcess(const Budget* budget, Handler handler);
  ~SolverProcess();  // kills and reaps the child
  SolverProcess(const SolverProcess&) = delete;
  SolverProcess& operator=(const SolverProcess&) = delete;

  // Sends `request` and waits for the reply. Throws what the handler threw;
  // BudgetExceeded at the deadline or past --max-memory (the child is then
  // killed at once); SolverError when the child ended without answering (a
  // crash in the solver, killed from outside).
  std::string call(std::string_view request);

  pid_t pid() const { return pid_; }

 private:
  void exchange(std::string_view out, std::string& in);
  void watch();
  void kill_child();
  [[noreturn]] void lost();

  const Budget* budget_;
  pid_t pid_ = -1;
  int fd_ = -1;
  std::size_t base_pages_ = 0;  // the child's resident pages just after the fork
  HelperMemory memory_;
};

// Runs `work` once in a SolverProcess and returns its answer: the shape of
// an engine run. `work` gets the child's budget.
std::string run_isolated(const Budget* budget,
                         const std::function<std::string(const Budget*)>& work);

}  // namespace redscope::detail
