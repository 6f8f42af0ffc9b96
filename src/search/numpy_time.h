// NumPy running the program's own text on the search's inputs: the baseline
// of the speed-up that optimize reports. The program is real Python that
// NumPy runs as written (DESIGN.md §2), so no translation is involved.
#pragma once

#include <string>
#include <vector>

#include "ir/program.h"
#include "search/search.h"

namespace axon::search {

/// Times program.kernel under $AXON_PYTHON (default /usr/bin/python3, else
/// python3 on PATH) with NumPy on float32 copies of `inputs` (dense, by
/// parameter), in a child process limited to `limit_s` seconds. Files go to
/// `work_dir`. Never throws: a missing interpreter or NumPy, or a failure, is
/// why_not.
NumpyTime time_numpy(const ir::Program& program, const std::vector<std::vector<float>>& inputs,
                     const std::vector<std::vector<int64_t>>& shapes, const std::string& work_dir, double limit_s);

}  // namespace axon::search
