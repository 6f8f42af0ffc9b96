#include "search/numpy_time.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "eval/npy.h"
#include "support/files.h"
#include "support/process.h"

namespace axon::search {
namespace {

// Loads the file as a module, calls the entry twice (warm-up: the first
// call's page faults and caches), then times calls until 1 s is spent (5
// calls at least, 200 at most); writes JSON.
const char* const kTimer = R"PY(import importlib.util, json, sys, time
import numpy as np
path, entry, out = sys.argv[1], sys.argv[2], sys.argv[3]
spec = importlib.util.spec_from_file_location("axon_program", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
fn = getattr(module, entry)
arrays = [np.load(p) for p in sys.argv[4:]]
fn(*arrays)
fn(*arrays)
times, spent = [], 0.0
while len(times) < 5 or (spent < 1.0 and len(times) < 200):
    t = time.perf_counter()
    fn(*arrays)
    times.append(time.perf_counter() - t)
    spent += times[-1]
times.sort()
with open(out, "w") as f:
    json.dump({"median": times[len(times) // 2], "min": times[0], "max": times[-1], "reps": len(times),
               "numpy": np.__version__}, f)
)PY";

std::string python() {
  if (const char* env = std::getenv("AXON_PYTHON"); env && *env) return env;
  return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

}  // namespace

NumpyTime time_numpy(const ir::Program& program, const std::vector<std::vector<float>>& inputs,
                     const std::vector<std::vector<int64_t>>& shapes, const std::string& work_dir, double limit_s) {
  NumpyTime t;
  if (!program.source) {
    t.why_not = "the program has no file";
    return t;
  }
  try {
    std::string script = work_dir + "/numpy_time.py";
    write_file(script, kTimer);
    // The program's text as it was compiled, not its file: a script that
    // holds the kernel and calls axon must not run again here.
    std::string text = work_dir + "/numpy_program.py";
    write_file(text, program.source->text);
    std::vector<std::string> argv{python(), script, text, program.kernel.name, work_dir + "/numpy_time.json"};
    for (size_t i = 0; i < inputs.size(); ++i) {
      eval::Tensor tensor;
      tensor.shape = shapes[i];
      tensor.data.assign(inputs[i].begin(), inputs[i].end());
      std::string path = work_dir + "/numpy_in" + std::to_string(i) + ".npy";
      eval::write_npy(path, tensor, eval::NpyDtype::F32);
      argv.push_back(path);
    }
    int status = run_limited(argv, work_dir + "/numpy_time.log", limit_s);
    if (status != 0) {
      std::string why = last_line(work_dir + "/numpy_time.log");
      t.why_not = status < 0 ? "NumPy did not finish within " + std::to_string(static_cast<int>(limit_s)) + " s"
                             : "NumPy could not run the file" + (why.empty() ? "" : ": " + why);
      return t;
    }
    std::ifstream in(work_dir + "/numpy_time.json");
    nlohmann::json j = nlohmann::json::parse(in);
    t.median = j.at("median"), t.min = j.at("min"), t.max = j.at("max"), t.reps = j.at("reps");
    t.measured = t.median > 0;
    if (!t.measured) t.why_not = "NumPy's time was zero";
  } catch (const std::exception& e) {
    t.measured = false;
    t.why_not = std::string("NumPy could not be timed: ") + e.what();
  }
  return t;
}

}  // namespace axon::search
