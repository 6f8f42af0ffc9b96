// The trn1 target (AWS Trainium, NeuronCore-v2): NKI kernels (emit/nki)
// behind the target seam. Its toolchain writes kernel.py; its runner is
// Axon's NumPy implementation of the NKI API (sim/nki), which computes the
// outputs and enforces the API's rules. There is no timing model yet: a
// candidate's score is the number of instructions its busiest engine issues.
#pragma once

#include <memory>

#include "search/target.h"

namespace axon::targets {

std::unique_ptr<search::Target> make_trn1_target(const hw::Description& description, smt::Prover& prover);

/// The folder that holds the simulator's package (sim/nki): $AXON_SIM_DIR,
/// else the checkout's.
std::string nki_sim_dir();
/// The Python that runs it: $AXON_SIM_PYTHON, else the checkout's .sim-venv
/// (scripts/sim-env.sh), else /usr/bin/python3.
std::string nki_sim_python();

/// Runs the NKI kernel `entry` of the file `kernel_py` under the simulator in
/// a child process limited to `timeout_s`, on float32 `inputs` of the given
/// shapes, each passed to the kernel as its `dtypes` entry ("f32", "bf16",
/// "f16"; rounded to nearest); files go to `work_dir` (created). The outputs, or why not; the
/// "seconds" of an Ok result are left empty. Never throws. `dry`: no values
/// (the inputs are zeros of their shapes, `inputs` is not read, no outputs
/// are returned): the rules and the trace only.
tune::RunResult run_nki(const std::string& kernel_py, const std::string& entry,
                        const std::vector<std::vector<int64_t>>& input_shapes, const std::vector<std::string>& dtypes,
                        const std::vector<std::vector<float>>& inputs,
                        const std::vector<std::vector<int64_t>>& output_shapes, double timeout_s,
                        const std::string& work_dir, const std::string& trace_path = "", bool dry = false);

}  // namespace axon::targets
