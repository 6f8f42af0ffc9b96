// Helpers shared by the fusion tests (and the cost model's): a kernel from
// NumPy text.
#pragma once

#include <memory>
#include <string>

#include "ir/program.h"
#include "lang/load.h"

namespace axon::testing {

/// `text` (one or more defs, numpy already imported) compiled as file `path`.
inline ir::Program compile_numpy(const std::string& path, const std::string& text) {
  auto file = std::make_shared<SourceFile>();
  file->path = path;
  file->text = "import numpy as np\n" + text;
  return lang::compile_source(file);
}

}  // namespace axon::testing
