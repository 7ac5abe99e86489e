// redscope_fuzz: a mutation fuzzer over every input surface (issue 12 item
// 9, issue 28): PTX litmus, NVIDIA .test, SASS litmus (text and words), the
// listings of `sass encode` / `sass decode`, PTO, cat models and the JSON
// that `redscope merge` reads. tests/fuzz.hpp lists the targets; inputs go
// round-robin over them and are a function of (seed, index), so any input of
// a run can be made again.
//
// Two modes (docs/testing.md "The fuzz harness"):
//   full (default)  every input through the whole pipeline (parse, z3, enum,
//                   z3 against enum, op, atomicity, explain, xval, pictures),
//                   each in its own forked child: about 10 inputs/s.
//   --fast          parse level in-process (dialect parser and expansion,
//                   encode/decode and their round trips, cat parse and one
//                   evaluation, merge read and JSON validity), forking once
//                   per batch of inputs; a batch that crashes is replayed
//                   input by input in fresh children to name the culprit.
//                   Every --full-every'th input also runs the full pipeline.
// An input may end only with a result or a located diagnostic; anything
// else is a finding (tests/fuzz_targets.cpp), written with its input under
// the findings folder. Times are CPU times: an input over --slow seconds is
// reported, one over --hang seconds is killed; in full mode both fail the
// run only with --fail-on-slow, in fast mode a hang is a finding.
//
//   redscope_fuzz [--fast] [--seconds N | --inputs N] [--seed S] [--jobs N]
//                 [--targets a,b,...] [--corpus DIR]... [--findings DIR]
//                 [--batch N] [--full-every N] [--slow S] [--hang S]
//                 [--fast-slow S] [--fast-hang S] [--max-memory MB]
//                 [--fail-on-slow] [--no-fork] [--verbose]
//   redscope_fuzz --replay FILE...   (each file once, in-process: both checks)
//
// Exit status: 0 when no input failed, 1 on findings, 2 on bad usage.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "fuzz.hpp"
#include "redscope/core/allocator.hpp"
#include "redscope/engine/enumerate/enumerate.hpp"

using namespace redscope::fuzz;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

namespace {

struct Options {
  double seconds = 60;
  std::uint64_t max_inputs = 0;  // 0: until --seconds
  std::uint64_t seed = 0;
  bool seed_given = false;
  bool fast = false;
  unsigned jobs = 1;
  std::vector<Target> targets{kTargets.begin(), kTargets.end()};
  std::vector<std::string> corpus;
  std::string findings = "fuzz-findings";
  std::uint64_t batch = 2000;
  std::uint64_t full_every = 200;  // --fast: every Nth input also runs in full (0: never)
  double slow = 5, hang = 60;      // full inputs
  double fast_slow = 1, fast_hang = 10;
  std::size_t max_memory_mb = 4096;  // RLIMIT_AS of a child (not under ASan)
  bool fail_on_slow = false;
  bool no_fork = false;
  bool verbose = false;
  std::vector<std::string> replay;
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "redscope_fuzz: " << why << "\n"
            << "usage: redscope_fuzz [--fast] [--seconds N | --inputs N] [--seed S] [--jobs N]\n"
               "                     [--targets a,b,...] [--corpus DIR]... [--findings DIR]\n"
               "                     [--batch N] [--full-every N] [--slow S] [--hang S]\n"
               "                     [--fast-slow S] [--fast-hang S] [--max-memory MB]\n"
               "                     [--fail-on-slow] [--no-fork] [--verbose]\n"
               "       redscope_fuzz --replay FILE...\n"
               "targets: ptx nvtest sass sass-asm sass-words pto cat merge cycle spec report api\n";
  std::exit(2);
}

std::vector<Target> parse_targets(const std::string& list) {
  std::vector<Target> out;
  std::stringstream ss(list);
  std::string n;
  while (std::getline(ss, n, ',')) {
    const auto t = target_named(n);
    if (!t) usage("unknown target " + n);
    out.push_back(*t);
  }
  if (out.empty()) usage("no target");
  return out;
}

Options parse_args(int argc, char** argv) {
  Options o;
  bool seconds_given = false;
  auto need = [&](int& i) -> std::string {
    if (i + 1 >= argc) usage(std::string("missing value after ") + argv[i]);
    return argv[++i];
  };
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--seconds") {
        o.seconds = std::stod(need(i));
        seconds_given = true;
      } else if (a == "--inputs")
        o.max_inputs = std::stoull(need(i));
      else if (a == "--seed") {
        o.seed = std::stoull(need(i));
        o.seed_given = true;
      } else if (a == "--fast")
        o.fast = true;
      else if (a == "--jobs")
        o.jobs = static_cast<unsigned>(std::max(1, std::stoi(need(i))));
      else if (a == "--targets")
        o.targets = parse_targets(need(i));
      else if (a == "--corpus")
        o.corpus.push_back(need(i));
      else if (a == "--findings")
        o.findings = need(i);
      else if (a == "--batch")
        o.batch = std::max<std::uint64_t>(1, std::stoull(need(i)));
      else if (a == "--full-every")
        o.full_every = std::stoull(need(i));
      else if (a == "--slow")
        o.slow = std::stod(need(i));
      else if (a == "--hang")
        o.hang = std::stod(need(i));
      else if (a == "--fast-slow")
        o.fast_slow = std::stod(need(i));
      else if (a == "--fast-hang")
        o.fast_hang = std::stod(need(i));
      else if (a == "--max-memory")
        o.max_memory_mb = std::stoull(need(i));
      else if (a == "--fail-on-slow")
        o.fail_on_slow = true;
      else if (a == "--no-fork")
        o.no_fork = true;
      else if (a == "--verbose")
        o.verbose = true;
      else if (a == "--replay") {
        o.replay.push_back(need(i));
        while (i + 1 < argc && argv[i + 1][0] != '-') o.replay.push_back(argv[++i]);
      } else if (a == "-h" || a == "--help")
        usage("help");
      else
        usage("unknown argument " + a);
    }
  } catch (const std::logic_error&) {
    usage("bad number");
  }
  if (o.max_inputs > 0 && !seconds_given) o.seconds = 1e9;
  if (o.corpus.empty())
    o.corpus = {std::string(REDSCOPE_SOURCE_DIR) + "/litmus",
                std::string(REDSCOPE_SHARED_DIR) + "/conformance",
                std::string(REDSCOPE_SOURCE_DIR) + "/models",
                std::string(REDSCOPE_SOURCE_DIR) + "/docs/matrices"};
  if (!o.seed_given)
    o.seed = static_cast<std::uint64_t>(
        std::chrono::system_clock::now().time_since_epoch().count() % 1000000007);
  return o;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\t', ' ');
  return s.substr(0, 600);
}

void write_all(int fd, const std::string& msg) {
  std::size_t off = 0;
  while (off < msg.size()) {
    const ssize_t n = write(fd, msg.data() + off, msg.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += static_cast<std::size_t>(n);
  }
}

// ---- counts shared with the children ---------------------------------------

struct Counts {
  std::uint64_t inputs = 0, results = 0, diagnostics = 0, findings = 0, slow = 0, hangs = 0;
  double cpu = 0;
  void add(const Counts& o) {
    inputs += o.inputs;
    results += o.results;
    diagnostics += o.diagnostics;
    findings += o.findings;
    slow += o.slow;
    hangs += o.hangs;
    cpu += o.cpu;
  }
};

// A child's progress, in memory shared with the parent (so that counts and
// the input it was on survive a crash).
struct Shared {
  std::uint64_t current = 0;
  char stage[64] = {};  // full mode: the stage running
  std::array<Counts, kTargetCount> per{};
};

Shared* map_shared() {
  void* p =
      mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    std::exit(2);
  }
  return new (p) Shared();
}

void count(Counts& c, const Verdict& v, double cpu) {
  ++c.inputs;
  c.cpu += cpu;
  (v.kind == Verdict::Result       ? c.results
   : v.kind == Verdict::Diagnostic ? c.diagnostics
                                   : c.findings)++;
}

// ---- a run -----------------------------------------------------------------

struct Job {
  std::uint64_t first = 0, last = 0;  // inputs [first, last)
  bool full = false;
};

struct Child {
  pid_t pid = -1;
  int fd = -1;
  Job job;
  Shared* shared = nullptr;
  std::string out;  // what it wrote so far
  unsigned slot = 0;
};

class Run {
 public:
  Run(const Options& o, const Corpora& c) : o_(o), c_(c), fast_(fast_context(c)) {
    for (Target t : o.targets)
      if (!c[static_cast<std::size_t>(t)].texts.empty()) targets_.push_back(t);
    if (targets_.empty()) usage("no target has a corpus");
    const Corpus& ptx = c[static_cast<std::size_t>(Target::Ptx)];
    for (std::size_t i = 0; i < ptx.files.size() && cat_test_.empty(); ++i)
      if (fs::path(ptx.files[i]).filename() == "MP+rel-acq-gpu.litmus") cat_test_ = ptx.texts[i];
    if (cat_test_.empty() && !ptx.texts.empty()) cat_test_ = ptx.texts.front();
    // The targets whose full check goes deeper than the fast one.
    for (std::size_t p = 0; p < targets_.size(); ++p)
      if (has_full_check(targets_[p])) deep_.push_back(p);
    free_slots_.resize(o.jobs);
    for (unsigned i = 0; i < o.jobs; ++i) free_slots_[i] = o.jobs - 1 - i;
  }
  const std::vector<Target>& targets() const { return targets_; }
  int go();

 private:
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - t0_).count(); }
  bool time_left() const { return elapsed() < o_.seconds; }
  bool next_job(Job& j);
  void start(const Job& j);
  void finish(Child& ch);
  void handle_line(const Child& ch, const std::string& line);
  void lost_batch(const Child& ch, int status);
  int run_alone(std::uint64_t index, bool full, Verdict& v);
  void record(std::uint64_t index, bool full, const std::string& kind, const Verdict& v,
              double cpu);
  void progress();
  int summary();

  // In the child.
  [[noreturn]] void child_fast(const Job& j, Shared& sh, int fd);
  [[noreturn]] void child_full(const Job& j, Shared& sh, int fd, unsigned slot);
  void limit_child(double hang) const;

  const Options& o_;
  const Corpora& c_;
  FastContext fast_;
  std::string cat_test_;
  std::vector<Target> targets_;
  std::vector<std::size_t> deep_;  // positions in targets_ of those with a deeper full check
  Clock::time_point t0_ = Clock::now();
  std::uint64_t next_ = 0;  // next fast input to schedule
  std::deque<Job> queue_;   // jobs to run before new ones
  std::vector<Child> running_;
  std::vector<unsigned> free_slots_;
  std::array<Counts, kTargetCount> fast_counts_{}, full_counts_{};
  std::map<std::string, std::uint64_t> classes_;  // finding class -> inputs
  std::map<std::string, std::string> examples_;   // finding class -> first file
  std::map<std::string, double> stage_seconds_;
  std::uint64_t findings_ = 0, slow_ = 0, hangs_ = 0, enum_skipped_ = 0, replays_ = 0;
  double next_progress_ = 15;
};

Input input_at(const Corpora& c, const std::vector<Target>& targets, std::uint64_t seed,
               std::uint64_t i) {
  return make_input(c, targets, seed, i);
}

bool Run::next_job(Job& j) {
  if (!time_left()) return false;  // queued full runs too: --seconds bounds the run
  if (!queue_.empty()) {
    j = queue_.front();
    queue_.pop_front();
    return true;
  }
  if (!time_left() || (o_.max_inputs && next_ >= o_.max_inputs)) return false;
  const std::uint64_t size = o_.fast ? o_.batch : 1;
  j = Job{next_, next_ + size, !o_.fast};
  if (o_.max_inputs) j.last = std::min(j.last, o_.max_inputs);
  next_ = j.last;
  // The full runs of this batch's inputs: the k-th is the first input from
  // k * full_every on of the k-th deep target (round-robin), whatever
  // full_every is.
  if (o_.fast && o_.full_every && !deep_.empty())
    for (std::uint64_t k = j.first / o_.full_every; k * o_.full_every < j.last; ++k) {
      const std::uint64_t base = k * o_.full_every, n = targets_.size();
      const std::uint64_t i = base + (deep_[k % deep_.size()] + n - base % n) % n;
      if (i >= j.first && i < j.last) queue_.push_back(Job{i, i + 1, true});
    }
  return true;
}

// CPU cap (SIGPROF: the whole process, every thread), a wall-clock alarm at
// 20 times it, and an address-space cap (not under ASan, whose shadow
// memory is terabytes of address space).
void Run::limit_child(double hang) const {
  itimerval it{};
  it.it_value.tv_sec = static_cast<time_t>(hang);
  it.it_value.tv_usec = static_cast<suseconds_t>((hang - std::floor(hang)) * 1e6);
  setitimer(ITIMER_PROF, &it, nullptr);
  alarm(static_cast<unsigned>(std::ceil(hang * 20)));
}

// The harness's own test (tests/fuzz_selftest.sh): REDSCOPE_FUZZ_CRASH_AT=N
// and REDSCOPE_FUZZ_HANG_AT=N make input N crash (SIGSEGV) or spin.
void self_test(std::uint64_t index) {
  for (const char* var : {"REDSCOPE_FUZZ_CRASH_AT", "REDSCOPE_FUZZ_HANG_AT"}) {
    const char* v = std::getenv(var);
    if (!v || std::strtoull(v, nullptr, 10) != index) continue;
    if (std::strcmp(var, "REDSCOPE_FUZZ_CRASH_AT") == 0) std::raise(SIGSEGV);
    volatile std::uint64_t spin = 0;
    while (true) spin = spin + 1;
  }
}

// The full mode's budget: --timeout T with 2T + 5 = --hang, --max-memory M
// with 2M a quarter of the address-space cap, so that a child killed at the
// hang cap or out of memory is a run that overran its budget (issue 28).
void budget(FullContext& ctx, double hang, std::size_t max_memory_mb) {
  ctx.budget_seconds = std::max(1.0, (hang - 5) / 2);
  ctx.budget_mb = max_memory_mb / 4;
}

void Run::child_fast(const Job& j, Shared& sh, int fd) {
  const auto deadline = t0_ + std::chrono::duration<double>(o_.seconds);
  for (std::uint64_t i = j.first; i < j.last; ++i) {
    if (Clock::now() > deadline && i > j.first) break;
    sh.current = i;
    const Input in = input_at(c_, targets_, o_.seed, i);
    limit_child(o_.fast_hang);
    self_test(i);
    const double t0 = cpu_now();
    const Verdict v = check_fast(in, fast_);
    const double dt = cpu_now() - t0;
    Counts& k = sh.per[static_cast<std::size_t>(in.target)];
    count(k, v, dt);
    if (v.kind == Verdict::Finding)
      write_all(fd,
                fmt::format("F\t{}\t{}\t{}\t{}\n", i, one_line(v.stage), one_line(v.detail), dt));
    else if (dt > o_.fast_slow) {
      ++k.slow;
      write_all(fd,
                fmt::format("S\t{}\t{}\t{}\t{}\n", i, one_line(v.stage), one_line(v.detail), dt));
    } else if (o_.verbose)
      write_all(fd, fmt::format("V\t{}\t{}\n", i, one_line(v.detail)));
  }
  sh.current = j.last;
  write_all(fd, "E\n");
  std::_Exit(0);
}

void Run::child_full(const Job& j, Shared& sh, int fd, unsigned slot) {
  sh.current = j.first;
  const Input in = input_at(c_, targets_, o_.seed, j.first);
  FullContext ctx;
  ctx.fast = fast_;
  ctx.cat_test = cat_test_;
  ctx.file = fmt::format("{}/current-{}{}", o_.findings, slot, extension(in.target));
  budget(ctx, o_.hang, o_.max_memory_mb);
  ctx.stage_out = sh.stage;
  ctx.stage_out_size = sizeof sh.stage;
  spit(ctx.file, in.text);
  limit_child(o_.hang);
  self_test(j.first);
  const double t0 = cpu_now();
  const Verdict v = check_full(in, ctx);
  const double dt = cpu_now() - t0;
  count(sh.per[static_cast<std::size_t>(in.target)], v, dt);
  std::string msg;
  for (const auto& [st, t] : ctx.stage_seconds) msg += fmt::format("T\t{}\t{}\n", st, t);
  if (ctx.enum_skipped) msg += "K\n";
  if (v.kind == Verdict::Finding)
    msg += fmt::format("F\t{}\t{}\t{}\t{}\n", j.first, one_line(v.stage), one_line(v.detail), dt);
  else if (dt > o_.slow) {
    ++sh.per[static_cast<std::size_t>(in.target)].slow;
    msg += fmt::format("S\t{}\t{}\t{}\t{}\n", j.first, one_line(v.stage), one_line(v.detail), dt);
  } else if (o_.verbose)
    msg += fmt::format("V\t{}\t{}\n", j.first, one_line(v.detail));
  write_all(fd, msg + "E\n");
  std::_Exit(0);
}

void Run::start(const Job& j) {
  Child ch;
  ch.job = j;
  ch.shared = map_shared();
  ch.slot = free_slots_.back();
  free_slots_.pop_back();
  int fds[2];
  if (pipe(fds) != 0) {
    perror("pipe");
    std::exit(2);
  }
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    std::exit(2);
  }
  if (pid == 0) {
    close(fds[0]);
    if (!kSanitized && o_.max_memory_mb) {
      const rlim_t cap = static_cast<rlim_t>(o_.max_memory_mb) << 20;
      const rlimit rl{cap, cap};
      setrlimit(RLIMIT_AS, &rl);
    }
    if (j.full) child_full(j, *ch.shared, fds[1], ch.slot);
    child_fast(j, *ch.shared, fds[1]);
  }
  close(fds[1]);
  ch.pid = pid;
  ch.fd = fds[0];
  running_.push_back(std::move(ch));
}

// One input alone in a fresh child (a crashed batch's replay): 0 when it
// ends normally (its verdict in `v`), else the wait status.
int Run::run_alone(std::uint64_t index, bool full, Verdict& v) {
  ++replays_;
  Job j{index, index + 1, full};
  start(j);
  Child ch = std::move(running_.back());
  running_.pop_back();
  char buf[4096];
  for (;;) {
    const ssize_t n = read(ch.fd, buf, sizeof buf);
    if (n > 0) {
      ch.out.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  close(ch.fd);
  int status = 0;
  while (waitpid(ch.pid, &status, 0) < 0 && errno == EINTR) {}
  munmap(ch.shared, sizeof(Shared));
  free_slots_.push_back(ch.slot);
  const bool ok =
      WIFEXITED(status) && WEXITSTATUS(status) == 0 && ch.out.find("E\n") != std::string::npos;
  if (!ok) return status == 0 ? -1 : status;
  v = {Verdict::Result, "", ""};
  const std::size_t f = ch.out.find("F\t");
  if (f != std::string::npos) {
    std::vector<std::string> parts;
    std::stringstream ss(ch.out.substr(f, ch.out.find('\n', f) - f));
    for (std::string p; std::getline(ss, p, '\t');) parts.push_back(p);
    if (parts.size() >= 4) v = {Verdict::Finding, parts[2], parts[3]};
  }
  return 0;
}

std::string signal_text(int status) {
  if (WIFSIGNALED(status))
    return fmt::format("crashed with signal {} ({})", WTERMSIG(status),
                       strsignal(WTERMSIG(status)));
  return fmt::format("exited with status {} (a sanitizer report?)", WEXITSTATUS(status));
}

bool hang_signal(int status) {
  return WIFSIGNALED(status) && (WTERMSIG(status) == SIGPROF || WTERMSIG(status) == SIGALRM ||
                                 WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL);
}

// A child that did not end normally: the input it was on is the suspect.
// A hang is that input's; a crash is confirmed by running the suspect alone,
// and else by replaying the batch up to it input by input. The rest of the
// batch is queued again.
void Run::lost_batch(const Child& ch, int status) {
  const std::uint64_t suspect = std::min(ch.shared->current, ch.job.last - 1);
  const std::size_t t = static_cast<std::size_t>(targets_[suspect % targets_.size()]);
  Counts& k = (ch.job.full ? full_counts_ : fast_counts_)[t];
  ++k.inputs;
  if (suspect + 1 < ch.job.last) queue_.push_front(Job{suspect + 1, ch.job.last, ch.job.full});
  // Full mode: the stage it was in (parse, run_z3, ...).
  const std::string where = ch.job.full && ch.shared->stage[0] ? ch.shared->stage : "child";
  if (hang_signal(status)) {
    ++k.hangs;
    record(suspect, ch.job.full, "hang",
           {Verdict::Finding, where,
            fmt::format("killed after the {} CPU s cap ({})", ch.job.full ? o_.hang : o_.fast_hang,
                        strsignal(WTERMSIG(status)))},
           0);
    return;
  }
  ++k.findings;
  const Verdict crash{Verdict::Finding, where, signal_text(status)};
  Verdict v;
  if (ch.job.full || ch.job.last - ch.job.first == 1 || run_alone(suspect, false, v) != 0) {
    record(suspect, ch.job.full, "crash", crash, 0);
    return;
  }
  for (std::uint64_t i = ch.job.first; i < suspect; ++i) {
    const int st = run_alone(i, false, v);
    if (st != 0) {
      record(i, false, "crash", {Verdict::Finding, "child", signal_text(st)}, 0);
      return;
    }
  }
  record(
      suspect, false, "crash",
      {Verdict::Finding, "child",
       signal_text(status) + fmt::format(" in the batch of inputs {} to {}, not reproduced alone",
                                         ch.job.first, suspect)},
      0);
}

// Writes a finding (or a slow input) with its input, once per class for the
// first three inputs of the class; prints each new class.
void Run::record(std::uint64_t index, bool full, const std::string& kind, const Verdict& found,
                 double cpu) {
  const Input in = input_at(c_, targets_, o_.seed, index);
  Verdict v = found;
  if (kind == "slow")
    v.detail = fmt::format("{:.1f} CPU s, then {}", cpu,
                           v.detail.empty() ? "a result" : v.detail.substr(0, 200));
  const std::string cls = kind == "slow"
                              ? fmt::format("slow {} / {}", name(in.target), v.stage)
                              : (kind == "hang"    ? "hang "
                                 : kind == "crash" ? "crash "
                                                   : "") +
                                    finding_class(in.target, v) + (full ? " [full]" : "");
  (kind == "slow" ? slow_ : kind == "hang" ? hangs_ : findings_)++;
  const std::uint64_t seen = classes_[cls]++;
  if (seen >= 3) return;
  const std::string base =
      fmt::format("{}/{}-{}-{}-{}", o_.findings, name(in.target), kind, o_.seed, index);
  const std::string file = base + std::string(extension(in.target));
  spit(file, in.text);
  spit(base + ".txt",
       fmt::format("{}: {} in {}{}\n{}\nCPU s: {:.2f}\ninput: {} (seed {}, index {})\n", kind,
                   name(in.target), v.stage, full ? " (full pipeline)" : "", v.detail, cpu, in.how,
                   o_.seed, index));
  if (seen == 0) {
    examples_[cls] = file;
    std::cout << fmt::format("{} [{}{}] in {}: {}\n  input: {} ({})\n",
                             kind == "slow"   ? "SLOW"
                             : kind == "hang" ? "HANG"
                                              : "FINDING",
                             name(in.target), full ? ", full" : "", v.stage,
                             v.detail.substr(0, 300), file, in.how.substr(0, 200))
              << std::flush;
  }
}

void Run::handle_line(const Child& ch, const std::string& line) {
  std::vector<std::string> p;
  std::stringstream ss(line);
  for (std::string s; std::getline(ss, s, '\t');) p.push_back(s);
  if (p.empty()) return;
  if (p[0] == "T" && p.size() >= 3) stage_seconds_[p[1]] += std::stod(p[2]);
  if (p[0] == "K") ++enum_skipped_;
  if ((p[0] == "F" || p[0] == "S") && p.size() >= 5)
    record(std::stoull(p[1]), ch.job.full, p[0] == "F" ? "finding" : "slow",
           {Verdict::Finding, p[2], p[3]}, std::stod(p[4]));
  if (p[0] == "V" && p.size() >= 3) std::cout << fmt::format("[{}] {}\n", p[1], p[2]);
}

void Run::finish(Child& ch) {
  close(ch.fd);
  int status = 0;
  while (waitpid(ch.pid, &status, 0) < 0 && errno == EINTR) {}
  std::size_t start = 0;
  bool ended = false;
  for (std::size_t nl; (nl = ch.out.find('\n', start)) != std::string::npos; start = nl + 1) {
    const std::string line = ch.out.substr(start, nl - start);
    ended = ended || line == "E";
    handle_line(ch, line);
  }
  auto& counts = ch.job.full ? full_counts_ : fast_counts_;
  for (std::size_t t = 0; t < kTargetCount; ++t) counts[t].add(ch.shared->per[t]);
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && ended;
  free_slots_.push_back(ch.slot);  // before lost_batch, whose replays need one
  if (!ok) lost_batch(ch, status);
  munmap(ch.shared, sizeof(Shared));
}

void Run::progress() {
  if (elapsed() < next_progress_) return;
  std::uint64_t fast = 0, full = 0;
  for (std::size_t t = 0; t < kTargetCount; ++t) {
    fast += fast_counts_[t].inputs;
    full += full_counts_[t].inputs;
  }
  std::cerr << fmt::format(
      "redscope_fuzz: {:.0f} s, {} inputs ({:.0f}/s){}, {} findings, {} slow, {} hangs\n",
      elapsed(), fast + (o_.fast ? 0 : full),
      static_cast<double>(o_.fast ? fast : full) / elapsed(),
      o_.fast ? fmt::format(" + {} full", full) : "", findings_, slow_, hangs_);
  while (next_progress_ < elapsed()) next_progress_ += 15;
}

int Run::go() {
  t0_ = Clock::now();
  Job j;
  for (;;) {
    while (running_.size() < o_.jobs && next_job(j)) start(j);
    if (running_.empty()) break;
    std::vector<pollfd> fds;
    for (const Child& ch : running_) fds.push_back(pollfd{ch.fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), 1000) < 0 && errno != EINTR) {
      perror("poll");
      std::exit(2);
    }
    for (std::size_t i = running_.size(); i-- > 0;) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      const ssize_t n = read(running_[i].fd, buf, sizeof buf);
      if (n > 0) {
        running_[i].out.append(buf, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      Child ch = std::move(running_[i]);
      running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
      finish(ch);
    }
    progress();
  }
  return summary();
}

int Run::summary() {
  for (unsigned s = 0; s < o_.jobs; ++s)
    for (Target t : kTargets)
      fs::remove(fmt::format("{}/current-{}{}", o_.findings, s, extension(t)));
  const double total = elapsed();
  Counts fast, full;
  for (std::size_t t = 0; t < kTargetCount; ++t) {
    fast.add(fast_counts_[t]);
    full.add(full_counts_[t]);
  }
  std::cout << fmt::format("redscope_fuzz: {:.1f} s, seed {}, {} job(s){}\n", total, o_.seed,
                           o_.jobs, kSanitized ? ", ASan+UBSan build" : "");
  auto table = [&](const char* mode, const std::array<Counts, kTargetCount>& per,
                   const Counts& all) {
    if (all.inputs == 0) return;
    std::cout << fmt::format("  {} mode: {} inputs, {:.0f} inputs/s wall, {:.0f} per CPU second\n",
                             mode, all.inputs, static_cast<double>(all.inputs) / total,
                             all.cpu > 0 ? static_cast<double>(all.inputs) / all.cpu : 0.0);
    std::cout
        << "    target        inputs   results  diagnost  findings  slow  hangs  inputs/CPU s\n";
    for (Target t : targets_) {
      const Counts& k = per[static_cast<std::size_t>(t)];
      std::cout << fmt::format("    {:<12} {:>7} {:>9} {:>9} {:>9} {:>5} {:>6} {:>13.0f}\n",
                               name(t), k.inputs, k.results, k.diagnostics, k.findings, k.slow,
                               k.hangs, k.cpu > 0 ? static_cast<double>(k.inputs) / k.cpu : 0.0);
    }
  };
  table("fast", fast_counts_, fast);
  table("full", full_counts_, full);
  if (!stage_seconds_.empty()) {
    std::cout << "  full-mode CPU time per stage:";
    for (const auto& [s, t] : stage_seconds_) std::cout << fmt::format(" {} {:.1f} s;", s, t);
    std::cout << "\n";
  }
  if (enum_skipped_)
    std::cout << fmt::format("  run_enum skipped on {} inputs (more than 2^18 coherence choices)\n",
                             enum_skipped_);
  if (replays_)
    std::cout << fmt::format("  {} inputs replayed alone after a lost batch\n", replays_);
  if (!classes_.empty()) {
    std::cout << "  classes (inputs, first example):\n";
    for (const auto& [cls, n] : classes_)
      std::cout << fmt::format("    {:>6}  {}\n            {}\n", n, cls, examples_[cls]);
  }
  std::cout << fmt::format("{} findings, {} slow, {} hangs (findings in {})\n", findings_, slow_,
                           hangs_, o_.findings);
  // A hang at parse level is a bug; a full input may take its time.
  std::uint64_t fast_hangs = 0;
  for (const Counts& k : fast_counts_) fast_hangs += k.hangs;
  if (findings_ || fast_hangs) return 1;
  if ((slow_ || hangs_) && o_.fail_on_slow) return 1;
  return 0;
}

// --no-fork: every input in this process, no isolation (for debuggers).
int run_in_process(const Options& o, const Corpora& c, const std::vector<Target>& targets) {
  const FastContext fast = fast_context(c);
  std::uint64_t findings = 0;
  const auto t0 = Clock::now();
  for (std::uint64_t i = 0; (!o.max_inputs || i < o.max_inputs) &&
                            std::chrono::duration<double>(Clock::now() - t0).count() < o.seconds;
       ++i) {
    const Input in = make_input(c, targets, o.seed, i);
    FullContext ctx;
    ctx.fast = fast;
    ctx.file = fmt::format("{}/current{}", o.findings, extension(in.target));
    spit(ctx.file, in.text);
    const Verdict v = o.fast ? check_fast(in, fast) : check_full(in, ctx);
    if (v.kind == Verdict::Finding) ++findings;
    if (v.kind == Verdict::Finding || o.verbose)
      std::cout << fmt::format("[{}] {} {}: {}\n", i, name(in.target), v.stage, v.detail);
  }
  std::cout << fmt::format("{} findings\n", findings);
  return findings ? 1 : 0;
}

// Each file once, in-process: the fast check, then the full one.
int replay(const Options& o, const Corpora& c) {
  int status = 0;
  FullContext base;
  base.fast = fast_context(c);
  const Corpus& ptx = c[static_cast<std::size_t>(Target::Ptx)];
  if (!ptx.texts.empty()) base.cat_test = ptx.texts.front();
  for (const std::string& f : o.replay) {
    const std::string text = slurp(f);
    const Input in{target_of_file(f, text), text, f};
    FullContext ctx = base;
    budget(ctx, o.hang, o.max_memory_mb);
    ctx.file = fmt::format("{}/current{}", o.findings, extension(in.target));
    spit(ctx.file, text);
    const double t0 = cpu_now();
    const Verdict fv = check_fast(in, base.fast);
    const double t1 = cpu_now();
    const Verdict v = check_full(in, ctx);
    fs::remove(ctx.file);
    for (const auto& [mode, verdict, secs] :
         {std::tuple{"fast", fv, t1 - t0}, std::tuple{"full", v, cpu_now() - t1}}) {
      std::cout << fmt::format("{} [{}, {}]: {}{}{} ({:.2f} CPU s)\n", f, name(in.target), mode,
                               verdict.kind == Verdict::Result       ? "result"
                               : verdict.kind == Verdict::Diagnostic ? "diagnostic"
                                                                     : "FINDING",
                               verdict.stage.empty() ? "" : " in " + verdict.stage,
                               verdict.detail.empty() ? "" : ": " + verdict.detail, secs);
      if (verdict.kind == Verdict::Finding) status = 1;
    }
    for (const auto& [st, t] : ctx.stage_seconds) std::cout << fmt::format("  {} {:.2f} s;", st, t);
    if (!ctx.stage_seconds.empty()) std::cout << "\n";
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  redscope::tune_allocator();  // before any thread starts
  const Options opt = parse_args(argc, argv);
  fs::create_directories(opt.findings);
  signal(SIGPIPE, SIG_IGN);
  const Corpora corpus = load_corpora(opt.corpus, opt.findings);
  if (!opt.replay.empty()) return replay(opt, corpus);
  Run run(opt, corpus);
  std::string sizes;
  for (Target t : run.targets())
    sizes += fmt::format(" {} {},", name(t), corpus[static_cast<std::size_t>(t)].texts.size());
  std::cout << fmt::format(
                   "redscope_fuzz: seed {}, {} mode, corpus:{} {} job(s), {}, findings in {}\n",
                   opt.seed,
                   opt.fast ? fmt::format("fast (batches of {}, full pipeline every {})", opt.batch,
                                          opt.full_every)
                            : "full",
                   sizes, opt.jobs,
                   opt.max_inputs ? fmt::format("{} inputs", opt.max_inputs)
                                  : fmt::format("{} s", opt.seconds),
                   opt.findings)
            << std::flush;
  if (opt.no_fork) return run_in_process(opt, corpus, run.targets());
  return run.go();
}
