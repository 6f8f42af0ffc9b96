// Running a helper program (an interpreter) as a child process, limited in time.
#pragma once

#include <string>
#include <vector>

namespace axon {

/// Runs argv (argv[0] looked up on PATH) with stdout and stderr to the file
/// `log`, killed after limit_s seconds; its exit status, or -1 when it was
/// killed, died by a signal or could not start.
int run_limited(const std::vector<std::string>& argv, const std::string& log, double limit_s);

/// The last non-empty line of the file at `path` ("" when there is none).
std::string last_line(const std::string& path);

/// The first non-empty line of the file at `path` ("" when there is none).
std::string first_line(const std::string& path);

}  // namespace axon
