// axon bench: the benchmark suite, Axon against the kernels a user would
// otherwise use. This command prepares what the driver needs (the Python
// virtual environment, the expert baselines) and runs bench/harness/run.py.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/commands.h"

namespace axon::cli {
namespace {

namespace fs = std::filesystem;

// Runs argv with the inherited stdout/stderr; returns its exit status.
int spawn(const std::vector<std::string>& argv) {
  std::vector<char*> raw;
  for (const std::string& a : argv) raw.push_back(const_cast<char*>(a.c_str()));
  raw.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) throw UserError({}, "bench: cannot fork");
  if (pid == 0) {
    execvp(raw[0], raw.data());
    std::cerr << "axon: error: cannot run '" << argv[0] << "'\n";
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

fs::path source_dir() {
  if (const char* env = std::getenv("AXON_SOURCE_DIR")) return env;
  return AXON_SOURCE_DIR;
}

// The simulator's virtual environment (scripts/sim-env.sh makes it).
std::string sim_python(const fs::path& root) {
  const char* venv = std::getenv("AXON_SIM_VENV");
  return ((venv && *venv ? fs::path(venv) : root / ".sim-venv") / "bin/python").string();
}

// The trn1 benchmark: the same kernels, every contestant timed by the trn1
// timing model on the NKI simulator's traces (bench/harness/trn1.py).
int bench_trn1(const Word& command, const ParsedArgs& args, const fs::path& root) {
  fs::path driver = root / "bench/harness/trn1.py";
  if (!fs::exists(driver))
    throw UserError(command.loc, "the benchmark is not here: " + driver.string() +
                                     " does not exist (set AXON_SOURCE_DIR to an Axon checkout)");
  if (int rc = spawn({(root / "scripts/sim-env.sh").string()}))
    throw UserError(command.loc,
                    "the NKI simulator's Python environment could not be set up (scripts/sim-env.sh exited " +
                        std::to_string(rc) + ")");
  fs::path exe = fs::read_symlink("/proc/self/exe");
  std::vector<std::string> argv = {sim_python(root), driver.string(), "--axon", exe.string()};
  if (args.has("--quick")) argv.push_back("--quick");
  for (const char* option : {"--out", "--preset", "--dims", "--seed", "--cache", "--work"})
    if (std::optional<std::string> v = option_text(args, option)) argv.insert(argv.end(), {option, *v});
  for (const Word& k : args.positional) argv.push_back(k.text);
  return spawn(argv);
}

int bench(const Word& command, const ParsedArgs& args) {
  fs::path root = source_dir();
  if (std::optional<std::string> target = option_text(args, "--target")) {
    if (*target == "trn1") return bench_trn1(command, args, root);
    if (*target != "cpu") throw UserError(command.loc, "axon bench --target takes cpu or trn1, not '" + *target + "'");
  }
  fs::path driver = root / "bench/harness/run.py";
  if (!fs::exists(driver))
    throw UserError(command.loc, "the benchmark is not here: " + driver.string() +
                                     " does not exist (set AXON_SOURCE_DIR to an Axon checkout)");
  fs::path exe = fs::read_symlink("/proc/self/exe");
  fs::path worker = exe.parent_path() / "axon-bench-worker";
  if (!fs::exists(worker))
    throw UserError(command.loc, worker.string() + " is missing: build it with `cmake --build " +
                                     exe.parent_path().string() + " --target axon-bench-worker`");
  const char* venv_env = std::getenv("AXON_BENCH_VENV");
  fs::path venv = venv_env ? fs::path(venv_env) : root / ".bench-venv";
  if (int rc = spawn({(root / "scripts/bench-env.sh").string()}))
    throw UserError(command.loc,
                    "the benchmark's Python environment could not be set up (scripts/bench-env.sh "
                    "exited " +
                        std::to_string(rc) + ")");
  fs::path baselines = exe.parent_path() / "bench-baselines";
  if (int rc = spawn({(root / "bench/baselines/build.sh").string(), baselines.string()}))
    throw UserError(command.loc,
                    "the expert baselines did not build (bench/baselines/build.sh exited " + std::to_string(rc) + ")");
  std::vector<std::string> argv = {(venv / "bin/python").string(),
                                   driver.string(),
                                   "--axon",
                                   exe.string(),
                                   "--worker",
                                   worker.string(),
                                   "--baselines",
                                   baselines.string()};
  for (const char* flag : {"--quick", "--json-only"})
    if (args.has(flag)) argv.push_back(flag);
  for (const char* option : {"--out", "--rounds", "--pause", "--contestants", "--preset", "--dims", "--seed", "--cache",
                             "--variants", "--work"})
    if (std::optional<std::string> v = option_text(args, option)) argv.insert(argv.end(), {option, *v});
  for (const Word& k : args.positional) argv.push_back(k.text);
  return spawn(argv);
}

}  // namespace

const Command& bench_command() {
  static const Command command{
      "bench",
      "run the benchmark suite: Axon against NumPy, PyTorch, torch.compile, JAX and an expert library",
      "usage: axon bench [KERNEL...] [--quick] [--out DIR] [--contestants LIST] [--rounds N]\n\n"
      "Runs each kernel of bench/kernels (or those named) at its bench sizes: `axon optimize` with the full\n"
      "search and with each stage switched off (no algebra, no fusion, default tiling), then NumPy,\n"
      "PyTorch eager, torch.compile, JAX (jax.jit) and the expert library (bench/baselines: oneDNN,\n"
      "OpenBLAS and hand-vectorized glue), all on the same inputs, each checked against the float64\n"
      "reference before it is timed in interleaved rounds (--pause: idle time before each turn).\n"
      "Measures the machine's FMA peak and streaming-copy bandwidth first and last.\n"
      "Writes bench/results/<machine>-<date>.{md,json,svg}.\n"
      "The first run creates a Python virtual environment (scripts/bench-env.sh: PyTorch, JAX, OpenVINO and NumPy\n"
      "pinned in bench/requirements.txt, about 4 GB from PyPI) at $AXON_BENCH_VENV or <source>/.bench-venv.\n"
      "The full suite took 44 minutes on a 2-core machine (12 contestants); --quick skips the ablations.\n\n"
      "With --target trn1: Axon's NKI kernels against the naive proxy (one stage per op through HBM;\n"
      "not the Neuron compiler) and the hand-written NKI kernels of bench/nki, with the ablations, every\n"
      "time simulated by the trn1 timing model on the NKI simulator's traces; also the paper's effects.\n"
      "Writes bench/results/trn1-<date>[-quick].{md,json}. Uses <source>/.sim-venv (scripts/sim-env.sh).\n",
      {{"--target", "T", "cpu (default) or trn1"},
       {"--quick", "", "no ablations, 2 variants per search, 10 rounds (trn1: 2 variants, 4 candidates)"},
       {"--out", "DIR", "where the results go (default bench/results)"},
       {"--contestants", "LIST",
        "a comma-separated subset: axon, axon_no_algebra, axon_no_fusion,\n"
        "axon_default_tiling, axon_no_tuning, numpy, torch_eager, torch_compile,\n"
        "torch_max_autotune, jax, openvino, expert"},
       {"--rounds", "N", "interleaved timing rounds (default 15, --quick 10)"},
       {"--pause", "S",
        "seconds idle before each contestant's timed calls, so that the threads\n"
        "the last one left spinning are asleep (default 0; every OpenMP contestant,\n"
        "Axon's included, runs with OMP_WAIT_POLICY=PASSIVE)"},
       {"--variants", "N", "variants per search (default 4, --quick 2)"},
       {"--preset", "NAME", "the SIZES preset of each kernel (default bench)"},
       {"--dims", "SPEC", "explicit sizes, with exactly one kernel"},
       {"--seed", "S", "seed of the inputs (default 0)"},
       {"--cache", "PATH", "the kernel cache axon optimize uses (default: a fresh one, so searches are real)"},
       {"--work", "DIR", "scratch folder (default <source>/build/bench-work)"},
       {"--json-only", "", "write only the .json"},
       {"--help", "", "show this help"}},
      bench};
  return command;
}

}  // namespace axon::cli
