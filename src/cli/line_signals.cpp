// Holding signals while a JSON Lines line is written (line_signals.hpp).
#include "cli/line_signals.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>

namespace redscope::cli {
namespace {

// The state, one word so that the handler and the writer agree on it with
// compare-and-swap: kIdle, kInLine (| the pending signal << 8), or kDying.
constexpr int kIdle = 0, kInLine = 1, kDying = 2;
std::atomic<int> g_state{kIdle};

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction g_old[3];

[[noreturn]] void die(int sig) {
  ::signal(sig, SIG_DFL);
  ::raise(sig);
  ::_exit(128 + sig);  // not reached: the default action ends the process
}

extern "C" void on_signal(int sig) {
  int s = g_state.load();
  for (;;) {
    if ((s & 0xff) == kInLine && (s >> 8) == 0) {
      if (g_state.compare_exchange_weak(s, kInLine | (sig << 8))) return;  // held
    } else if (s == kIdle) {
      if (g_state.compare_exchange_weak(s, kDying)) die(sig);
    } else {
      die(sig);  // a second signal during a line, or already dying
    }
  }
}

}  // namespace

LineSignals::LineSignals() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int k = 0; k < 3; ++k) ::sigaction(kSignals[k], &sa, &g_old[k]);
}

LineSignals::~LineSignals() {
  for (int k = 0; k < 3; ++k) ::sigaction(kSignals[k], &g_old[k], nullptr);
}

void LineSignals::begin() {
  int s = kIdle;
  // Dying: the handler is ending the process; write nothing more.
  while (!g_state.compare_exchange_weak(s, kInLine)) {
    if (s == kDying) ::pause();
    s = kIdle;
  }
}

void LineSignals::end(std::FILE* out) {
  std::fflush(out);
  const int s = g_state.exchange(kIdle);
  if (const int sig = s >> 8; sig != 0) {
    g_state.store(kDying);
    die(sig);
  }
}

}  // namespace redscope::cli
