// Running a helper program (an interpreter) as a child process, limited in time.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace axon {

/// Runs argv (argv[0] looked up on PATH) with stdout and stderr to the file
/// `log`, killed after limit_s seconds; its exit status, or -1 when it was
/// killed, died by a signal or could not start.
int run_limited(const std::vector<std::string>& argv, const std::string& log, double limit_s);

/// Runs `body` in a forked copy of this process and returns what it returned
/// (0 to 255), or -1 when it did not return within limit_s seconds (it is
/// killed), died, or the fork failed. For a computation that may run away
/// heedless of its own limits (a solver): only the child's result comes back,
/// none of its effects.
int run_forked(const std::function<int()>& body, double limit_s);

/// The last non-empty line of the file at `path` ("" when there is none).
std::string last_line(const std::string& path);

/// The first non-empty line of the file at `path` ("" when there is none).
std::string first_line(const std::string& path);

}  // namespace axon
