// The axon command. Only main prints errors and chooses the exit status:
// 0 success, 1 the input is wrong, 2 Axon itself failed.
#include <cstdlib>
#include <iostream>

#include "cli/commands.h"

int main(int argc, char** argv) {
  // Kernels are timed in children of this process with the waiting policy the
  // benchmark gives every OpenMP contestant: idle threads sleep rather than
  // spin on a core another thread needs (the user's own setting wins).
  setenv("OMP_WAIT_POLICY", "PASSIVE", 0);
  try {
    return axon::cli::run_cli(axon::cli::command_line_words(argc, argv));
  } catch (const axon::NoValidKernelError& e) {
    std::cerr << e.format();
    return axon::kExitNoValidKernel;
  } catch (const axon::UserError& e) {
    std::cerr << e.format();
    return 1;
  } catch (const axon::InternalError& e) {
    std::cerr << "axon: " << e.what() << "\n(this is a bug in Axon; please report it with the input)\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "axon: error: out of memory\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "axon: internal error: " << e.what() << "\n(this is a bug in Axon; please report it with the input)\n";
    return 2;
  }
}
