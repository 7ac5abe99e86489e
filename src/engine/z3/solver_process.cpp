// The solver's helper processes and their codec (solver_process.hpp).
#include "redscope/engine/z3/solver_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "redscope/core/diagnostic.hpp"
#include "redscope/core/failure.hpp"
#include "redscope/model/cat.hpp"

namespace redscope::detail {

// ---- codec ------------------------------------------------------------------

void WireOut::u(std::uint64_t v) {
  while (v >= 0x80) {
    bytes_.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  bytes_.push_back(static_cast<char>(v));
}

void WireOut::str(std::string_view s) {
  u(s.size());
  bytes_.append(s);
}

void WireOut::shared(const EdgeTexts::Item& s) {
  const auto [it, fresh] = shared_.emplace(s.get(), shared_.size());
  if (!fresh) return u(it->second + 1);
  u(0);
  str(*s);
}

void WireOut::u64s(const std::vector<std::uint64_t>& v) {
  u(v.size());
  for (std::uint64_t x : v) u(x);
}

namespace {
[[noreturn]] void malformed() {
  throw std::runtime_error("the solver's process sent a malformed answer");
}
}  // namespace

std::uint64_t WireIn::u() {
  std::uint64_t v = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (p_.empty()) malformed();
    const auto byte = static_cast<unsigned char>(p_.front());
    p_.remove_prefix(1);
    v |= std::uint64_t{byte & 0x7fU} << shift;
    if (!(byte & 0x80)) return v;
  }
  malformed();
}

std::size_t WireIn::size() {
  const std::uint64_t n = u();
  if (n > p_.size()) malformed();  // every element takes a byte at least
  return static_cast<std::size_t>(n);
}

std::string WireIn::str() {
  const std::size_t n = size();
  std::string s(p_.substr(0, n));
  p_.remove_prefix(n);
  return s;
}

EdgeTexts::Item WireIn::shared() {
  const std::uint64_t k = u();
  if (k == 0) return shared_.emplace_back(std::make_shared<const std::string>(str()));
  if (k > shared_.size()) malformed();
  return shared_[k - 1];
}

std::vector<std::uint64_t> WireIn::u64s() {
  std::vector<std::uint64_t> v(size());
  for (std::uint64_t& x : v) x = u();
  return v;
}

namespace {

void put_texts(WireOut& w, const EdgeTexts& t) {
  w.u(t.size());
  for (const EdgeTexts::Item& s : t.items()) w.shared(s);
}

EdgeTexts get_texts(WireIn& r) {
  EdgeTexts t;
  const std::size_t n = r.size();
  t.reserve(n);
  for (std::size_t i = 0; i < n; ++i) t.push_back(r.shared());
  return t;
}

}  // namespace

void put(WireOut& w, const Witness& x) {
  put_texts(w, x.rf);
  put_texts(w, x.co);
  w.u(x.choices.size());
  for (const std::string& c : x.choices) w.str(c);
  w.u(x.skeleton);
  w.u(x.executed.size());
  for (EventId e : x.executed) w.u(e);
  w.u(x.edges.size());
  for (const ExecEdge& e : x.edges) {
    w.u(e.from);
    w.u(e.to);
    w.str(e.kind);
  }
  w.u(x.values.size());
  for (const auto& [e, v] : x.values) {
    w.u(e);
    w.u(v);
  }
}

Witness get_witness(WireIn& r) {
  Witness x;
  x.rf = get_texts(r);
  x.co = get_texts(r);
  x.choices.resize(r.size());
  for (std::string& c : x.choices) c = r.str();
  x.skeleton = r.u();
  x.executed.resize(r.size());
  for (EventId& e : x.executed) e = r.u();
  x.edges.resize(r.size());
  for (ExecEdge& e : x.edges) {
    e.from = r.u();
    e.to = r.u();
    e.kind = r.str();
  }
  x.values.resize(r.size());
  for (auto& [e, v] : x.values) {
    e = r.u();
    v = r.u();
  }
  return x;
}

void put(WireOut& w, const FoundOutcomes& found) {
  w.u(found.size());
  for (const auto& [vals, witness] : found) {
    w.u64s(vals);
    put(w, witness);
  }
}

FoundOutcomes get_found(WireIn& r) {
  FoundOutcomes found;
  const std::size_t n = r.size();
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::uint64_t> vals = r.u64s();
    found.emplace_hint(found.end(), std::move(vals), get_witness(r));
  }
  return found;
}

// ---- messages: an 8-byte length, then the bytes ------------------------------

namespace {

// What the child's handler threw, as the first byte of a reply.
enum class Status : std::uint8_t { Ok, Input, Budget, Solver, InvalidArgument, Logic, Other };

std::string frame(std::string_view payload) {
  std::string out(8, '\0');
  std::uint64_t n = payload.size();
  for (int i = 0; i < 8; ++i, n >>= 8)
    out[static_cast<std::size_t>(i)] = static_cast<char>(n & 0xff);
  out.append(payload);
  return out;
}

// The payload's length once `buf` holds the 8-byte header.
std::uint64_t frame_length(const std::string& buf) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = n << 8 | static_cast<unsigned char>(buf[static_cast<std::size_t>(i)]);
  return n;
}

// ---- the child ------------------------------------------------------------------

// Blocking: the child has nothing else to do. False at end of input.
bool read_all(int fd, char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t k = read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

bool write_all(int fd, const std::string& s) {
  const char* p = s.data();
  std::size_t n = s.size();
  while (n > 0) {
    const ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

std::optional<std::string> read_message(int fd) {
  std::string head(8, '\0');
  if (!read_all(fd, head.data(), 8)) return std::nullopt;
  std::string body(frame_length(head), '\0');
  if (!read_all(fd, body.data(), body.size())) return std::nullopt;
  return body;
}

std::string error_reply(Status s, std::string_view what) {
  WireOut w;
  w.u(static_cast<std::uint8_t>(s));
  w.str(what);
  return std::move(w.bytes());
}

// The handler's answer to one request, or what it threw.
std::string answer(const SolverProcess::Handler& handler, const std::string& request,
                   const Budget* budget) {
  try {
    WireIn in(request);
    std::string reply(1, static_cast<char>(Status::Ok));
    reply += handler(in, budget);
    return reply;
  } catch (const InputError& e) {
    const Diagnostic& d = e.diagnostic();
    WireOut w;
    w.u(static_cast<std::uint8_t>(Status::Input));
    w.str(d.file);
    w.u(static_cast<std::uint64_t>(static_cast<std::int64_t>(d.loc.line)));
    w.u(static_cast<std::uint64_t>(static_cast<std::int64_t>(d.loc.col)));
    w.str(d.message);
    w.u(static_cast<std::uint8_t>(d.kind));
    w.str(d.rule);
    return std::move(w.bytes());
  } catch (const BudgetExceeded& e) {
    WireOut w;
    w.u(static_cast<std::uint8_t>(Status::Budget));
    w.u(static_cast<std::uint8_t>(e.kind()));
    w.str(e.what());
    return std::move(w.bytes());
  } catch (const SolverError& e) {
    return error_reply(Status::Solver, e.what());
  } catch (const std::invalid_argument& e) {
    return error_reply(Status::InvalidArgument, e.what());
  } catch (const std::logic_error& e) {
    return error_reply(Status::Logic, e.what());
  } catch (const std::exception& e) {
    return error_reply(Status::Other, e.what());
  } catch (...) {
    return error_reply(Status::Other, "unknown exception");
  }
}

// Every descriptor but the standard three and `keep` (made 3) is closed:
// the child must not hold another solver's socket open (its parent would
// not see it end) nor anything else of redscope's.
void close_inherited(int keep) {
  if (keep != 3) {
    dup2(keep, 3);
    if (keep > 3) close(keep);
  }
#if defined(SYS_close_range)
  if (syscall(SYS_close_range, 4U, ~0U, 0U) == 0) return;
#endif
  for (int fd = 4; fd < 4096; ++fd) close(fd);
}

// The child: serves requests on `fd` until its parent closes the socket or
// dies, then _exit: no destructor runs, no Z3 context is released.
[[noreturn]] void serve(int fd, pid_t parent, const Budget* parent_budget,
                        const SolverProcess::Handler& handler) {
  // Killed with the thread that forked it (and so with redscope); a terminal's
  // ^C or a SIGTERM to the group is redscope's to act on, which kills this.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) signal(s, SIG_IGN);
  // A crash ends it by the signal (its parent reports it), not in a handler
  // of redscope's or a test harness's.
  for (int s : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) signal(s, SIG_DFL);
  close_inherited(fd);
  // It holds a copy of redscope's unwritten standard output: should anything
  // in it call exit() (Z3 does on some internal errors), that copy goes
  // nowhere instead of being printed twice.
  if (const int null = open("/dev/null", O_WRONLY | O_CLOEXEC); null >= 0) {
    dup2(null, STDOUT_FILENO);
    close(null);
  }
  forget_helper_memory();
  std::optional<Budget> own;
  if (parent_budget) own.emplace(parent_budget->limits(), parent_budget->deadline());
  const Budget* budget = own ? &*own : nullptr;
  const AmbientBudget ambient(budget);
  while (const std::optional<std::string> request = read_message(3))
    if (!write_all(3, frame(answer(handler, *request, budget)))) break;
  _exit(0);
}

// The child's resident pages (0 when unknown).
std::size_t resident_pages(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/statm", static_cast<int>(pid));
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[128];
  const ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  unsigned long long size = 0, resident = 0;
  if (std::sscanf(buf, "%llu %llu", &size, &resident) != 2) return 0;
  return static_cast<std::size_t>(resident);
}

[[noreturn]] void rethrow(WireIn& r) {
  const auto s = static_cast<Status>(r.u());
  switch (s) {
    case Status::Input: {
      Diagnostic d;
      d.file = r.str();
      d.loc.line = static_cast<int>(static_cast<std::int64_t>(r.u()));
      d.loc.col = static_cast<int>(static_cast<std::int64_t>(r.u()));
      d.message = r.str();
      d.kind = static_cast<DiagnosticKind>(r.u());
      d.rule = r.str();
      throw InputError(std::move(d));
    }
    case Status::Budget: {
      const auto k = static_cast<BudgetKind>(r.u());
      throw BudgetExceeded(k, r.str());
    }
    case Status::Solver: throw SolverError(r.str());
    case Status::InvalidArgument: throw std::invalid_argument(r.str());
    case Status::Logic: throw std::logic_error(r.str());
    case Status::Ok:
    case Status::Other: break;
  }
  throw std::runtime_error(r.str());
}

// How long a parent waits between looks at its child's memory.
constexpr std::chrono::milliseconds kTick{20};

}  // namespace

// ---- in this process or in a child ------------------------------------------------

namespace {

// True in a solver process (set right after fork(), while it has one
// thread): its sections are no-ops, and it never touches the gate, whose
// lock another thread of the parent may have held at the fork.
bool in_solver_process = false;

// Sections and forks (solver_process.hpp). Process-wide by nature: fork()
// copies every thread's state at once.
struct Gate {
  std::mutex m;
  std::condition_variable cv;
  std::size_t open = 0;  // sections open, all threads
  bool waiting = false;  // a fork waits for the sections to close: new ones wait
  bool forking = false;  // fork() runs: every new section waits, brief ones too
};

Gate& gate() {
  static Gate g;
  return g;
}

thread_local std::size_t sections_here = 0;  // this thread's open sections

// Forks once no other thread has a section open (waiting at most until the
// budget's deadline: then the budget's error). Returns fork()'s result.
pid_t fork_between_sections(const Budget* budget) {
  if (sections_here > 0) throw std::logic_error("a solver process forked inside a Z3 section");
  Gate& g = gate();
  std::unique_lock<std::mutex> lock(g.m);
  const auto wait = [&](auto ready) {
    while (!ready()) {
      if (budget) budget->check();  // the deadline, or a stop by the watchdog
      g.cv.wait_for(lock, kTick);
    }
  };
  wait([&] { return !g.waiting; });
  g.waiting = true;
  try {
    wait([&] { return g.open == 0; });
  } catch (...) {
    g.waiting = false;
    g.cv.notify_all();
    throw;
  }
  g.forking = true;
  lock.unlock();
  const pid_t pid = fork();
  if (pid == 0) {
    in_solver_process = true;
    return pid;
  }
  const int err = errno;
  lock.lock();
  g.forking = false;
  g.waiting = false;
  g.cv.notify_all();
  errno = err;
  return pid;
}

}  // namespace

InProcessZ3::InProcessZ3(bool brief) : open_(!in_solver_process) {
  if (!open_) return;
  Gate& g = gate();
  std::unique_lock<std::mutex> lock(g.m);
  g.cv.wait(lock, [&] { return !g.forking && (brief || sections_here > 0 || !g.waiting); });
  ++g.open;
  ++sections_here;
}

InProcessZ3::~InProcessZ3() {
  if (!open_) return;
  Gate& g = gate();
  const std::lock_guard<std::mutex> lock(g.m);
  --g.open;
  --sections_here;
  if (g.open == 0) g.cv.notify_all();
}

namespace {

Budget attempt_budget(const Budget* test, std::chrono::steady_clock::time_point until) {
  if (!test) return Budget(BudgetLimits{kInProcessSeconds, 0}, until);
  BudgetLimits limits = test->limits();
  limits.seconds = kInProcessSeconds;
  return Budget(limits, test->limits().seconds > 0 ? std::min(until, test->deadline()) : until);
}

}  // namespace

std::chrono::steady_clock::time_point attempt_end() {
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
             std::chrono::duration<double>(kInProcessSeconds));
}

InProcessBudget::InProcessBudget(const Budget* test, std::chrono::steady_clock::time_point until)
    : test_(test),
      budget_(attempt_budget(test, until)) {
  watchdog_ = std::jthread([this](std::stop_token st) {
    every(st, std::chrono::milliseconds(50), [this] {
      if (test_) {
        try {
          test_->check();
        } catch (const BudgetExceeded& e) {
          budget_.stop(e.kind());
        }
      }
      budget_.poll();
    });
  });
}

InProcessBudget::~InProcessBudget() {
  watchdog_.request_stop();
  watchdog_.join();
}

bool InProcessBudget::moved() const {
  if (test_) {
    try {
      test_->check();
    } catch (const BudgetExceeded&) {
      return false;
    }
  }
  try {
    budget_.check();
  } catch (const BudgetExceeded& e) {
    return e.kind() == BudgetKind::Timeout;
  }
  return false;
}

void InProcessBudget::check_spent() const {
  if (test_) test_->check();
  budget_.check();
}

bool small_for_process(const Skeleton& sk, const cat::Model& m) {
  if (sk.size() > kSmallEvents || m.exprs > kSmallModelExprs) return false;
  std::map<std::string_view, std::pair<std::size_t, std::size_t>> cells;  // reads, writes
  for (EventId e = 0; e < sk.size(); ++e) {
    const Event& ev = sk.ev(e);
    if (ev.is_read()) ++cells[ev.loc].first;
    if (ev.is_write()) ++cells[ev.loc].second;
  }
  std::size_t pairs = 0;
  for (const auto& [cell, n] : cells) pairs += n.first * n.second + n.second * n.second;
  return pairs <= kSmallPairs;
}

bool small_for_process(const Expansion& ex, const cat::Model& m) {
  return ex.skeletons.size() <= kSmallSkeletons &&
         std::all_of(ex.skeletons.begin(), ex.skeletons.end(),
                     [&m](const Skeleton& sk) { return small_for_process(sk, m); });
}

// ---- the parent -------------------------------------------------------------------

SolverProcess::SolverProcess(const Budget* budget, Handler handler) : budget_(budget) {
  if (budget_) budget_->check();
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw SolverError(fmt::format("cannot start the solver's process: {}", std::strerror(errno)));
  const pid_t parent = getpid();
  try {
    pid_ = fork_between_sections(budget);
  } catch (...) {
    close(sv[0]);
    close(sv[1]);
    throw;
  }
  if (pid_ == 0) serve(sv[1], parent, budget, handler);
  const int err = errno;
  close(sv[1]);
  if (pid_ < 0) {
    close(sv[0]);
    throw SolverError(fmt::format("cannot start the solver's process: {}", std::strerror(err)));
  }
  fd_ = sv[0];
  fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) | O_NONBLOCK);
  base_pages_ = resident_pages(pid_);
}

SolverProcess::~SolverProcess() { kill_child(); }

void SolverProcess::kill_child() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {}
  pid_ = -1;
  memory_.set(0);
}

void SolverProcess::lost() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  int status = 0;
  while (pid_ > 0 && waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
  pid_ = -1;
  memory_.set(0);
  if (WIFSIGNALED(status))
    throw SolverError(
        fmt::format("the solver's process was ended by signal {} ({}) before it "
                    "answered",
                    WTERMSIG(status), strsignal(WTERMSIG(status))));
  throw SolverError(fmt::format("the solver's process exited with status {} before it answered",
                                WEXITSTATUS(status)));
}

// The budget, between reads: past the deadline, or with this process and
// its helpers over --max-memory, the child is killed and the budget's error
// thrown.
void SolverProcess::watch() {
  if (!budget_) return;
  try {
    const std::size_t pages = resident_pages(pid_);
    const std::size_t mine = pages > base_pages_ ? pages - base_pages_ : 0;
    memory_.set(mine * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) / (1024 * 1024));
    budget_->check_memory();
  } catch (const BudgetExceeded&) {
    kill_child();
    throw;
  }
}

void SolverProcess::exchange(std::string_view request, std::string& reply) {
  using Clock = std::chrono::steady_clock;
  const std::string out = frame(request);
  std::size_t sent = 0;
  std::string in;
  auto next_watch = Clock::now();
  for (;;) {
    if (Clock::now() >= next_watch) {
      watch();
      next_watch = Clock::now() + kTick;
    }
    auto wait = kTick;
    if (budget_ && budget_->limits().seconds > 0)
      wait = std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(
                                std::max(budget_->deadline() - Clock::now(), Clock::duration{})));
    pollfd p{fd_, static_cast<short>(POLLIN | (sent < out.size() ? POLLOUT : 0)), 0};
    if (poll(&p, 1, static_cast<int>(wait.count())) < 0 && errno != EINTR)
      throw SolverError(fmt::format("waiting for the solver's process: {}", std::strerror(errno)));
    if (budget_) {
      try {
        budget_->check();  // the deadline, or a stop by the watchdog
      } catch (const BudgetExceeded&) {
        kill_child();
        throw;
      }
    }
    if (sent < out.size() && (p.revents & POLLOUT)) {
      const ssize_t k = send(fd_, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
      if (k < 0 && errno != EINTR && errno != EAGAIN) lost();
      if (k > 0) sent += static_cast<std::size_t>(k);
    }
    if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
    char buf[1 << 16];
    const ssize_t k = read(fd_, buf, sizeof buf);
    if (k == 0 || (k < 0 && errno != EINTR && errno != EAGAIN)) lost();
    if (k > 0) in.append(buf, static_cast<std::size_t>(k));
    if (in.size() >= 8 && in.size() - 8 >= frame_length(in)) {
      in.erase(0, 8);
      reply = std::move(in);
      return;
    }
  }
}

std::string SolverProcess::call(std::string_view request) {
  if (pid_ <= 0) throw SolverError("the solver's process has ended");
  std::string reply;
  exchange(request, reply);
  if (reply.empty()) throw std::runtime_error("the solver's process sent an empty answer");
  if (static_cast<Status>(reply[0]) == Status::Ok) return reply.substr(1);
  WireIn r(reply);
  rethrow(r);
}

std::string run_isolated(const Budget* budget,
                         const std::function<std::string(const Budget*)>& work) {
  SolverProcess p(budget, [&work](WireIn&, const Budget* b) { return work(b); });
  return p.call({});
}

}  // namespace redscope::detail
