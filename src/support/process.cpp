#include "support/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

namespace axon {

int run_limited(const std::vector<std::string>& argv, const std::string& log, double limit_s) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    FILE* f = std::fopen(log.c_str(), "w");
    if (f) {
      dup2(fileno(f), 1);
      dup2(fileno(f), 2);
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  auto start = std::chrono::steady_clock::now();
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > limit_s) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int run_forked(const std::function<int()>& body, double limit_s) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
    unsigned char result = static_cast<unsigned char>(body());
    ssize_t written = write(fds[1], &result, 1);
    _exit(written == 1 ? 0 : 1);
  }
  close(fds[1]);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  int result = -1;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd readable{fds[0], POLLIN, 0};
    int ready = poll(&readable, 1, static_cast<int>(std::min<int64_t>(left.count() + 1, 1 << 30)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready > 0) {
      unsigned char byte = 0;
      if (read(fds[0], &byte, 1) == 1) result = byte;
    }
    break;  // a result, or the pipe closed (the child died)
  }
  close(fds[0]);
  int status = 0;
  if (result < 0) kill(pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return result;
}

std::string last_line(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) return line;
  return "";
}

}  // namespace axon
