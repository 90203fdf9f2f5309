// A plugin's replay tried in a child process; see plugin_trial.hpp.
#include "core/plugin_trial.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <thread>

#include "model/units.hpp"

namespace tilelens::core {

// A plugin's replay, tried in a child process first: whatever the plugin does there (crash,
// hang, a task or victim it may not hand out), this process and its database are safe. Returns
// "" when the child's replay ended well (the replay is then run again here: replays are
// deterministic), else what went wrong. The child touches no database and leaves with _exit.
//
// The fork happens while no other worker is inside a replay or making a policy (`gate` held
// exclusively): a child copies the locks of every thread, and one held by another thread at
// that instant (a static's initialisation guard, the loader's lock in dlopen) would never be
// released in the child. `shared` is this worker's own hold on the gate, given up meanwhile.
std::string plugin_trial(const PreparedReplay& prepared, double time_limit_s, const std::atomic<bool>* cancel, std::shared_mutex* gate,
                         std::shared_lock<std::shared_mutex>* shared) {
  // The child's error message comes back through a pipe (a message fits its buffer).
  // Non-blocking on this side: another thread's trial child may hold a copy of the write end,
  // so an empty pipe is read as "no message" rather than waited on.
  int channel[2];
  if (pipe(channel) != 0) return std::string("cannot start the plugin's trial process: ") + std::strerror(errno);
  fcntl(channel[0], F_SETFL, O_NONBLOCK);
  if (shared) shared->unlock();
  pid_t child = 0;
  {
    std::unique_lock<std::shared_mutex> exclusive;
    if (gate) exclusive = std::unique_lock(*gate);
    child = fork();
    if (child == 0 && exclusive.owns_lock()) exclusive.release();  // the child's copy of the gate is never used again
  }
  if (child != 0 && shared) shared->lock();
  if (child < 0) {
    close(channel[0]);
    close(channel[1]);
    return std::string("cannot start the plugin's trial process: ") + std::strerror(errno);
  }
  if (child == 0) {
    close(channel[0]);
    // The default actions: a crash ends the child (a test framework's or a sanitizer's handler,
    // inherited, might not).
    for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(signal, SIG_DFL);
    auto summary = replay(prepared.workload, *prepared.scheduler.scheduler, *prepared.eviction.policy, prepared.options, nullptr);
    if (!summary) {
      const std::string& message = summary.error().message;
      const std::size_t length = std::min<std::size_t>(message.size(), 4000);
      if (write(channel[1], message.data(), length) < 0) _exit(4);
      _exit(3);
    }
    _exit(0);
  }
  close(channel[1]);
  struct Reader {
    int fd;
    ~Reader() { close(fd); }
  } reader{channel[0]};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_limit_s);
  int status = 0;
  while (true) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) break;
    if (done < 0 && errno != EINTR) return std::string("lost the plugin's trial process: ") + std::strerror(errno);
    if (cancel && cancel->load()) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      return kCancelled;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      return "the plugin ran past the time limit of " + format_fixed(time_limit_s, 0) + " s (--plugin-time-limit), and was stopped";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    return "the plugin crashed (signal " + std::to_string(signal) + ", " + strsignal(signal) + ")";
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  char buffer[4096];
  const ssize_t got = read(reader.fd, buffer, sizeof buffer);
  if (got > 0) return std::string(buffer, static_cast<std::size_t>(got));
  return "the plugin's replay failed in its trial process (exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")";
}

}  // namespace tilelens::core
