// libFuzzer target: any bytes as a program file. Compiling must either
// succeed or raise a UserError; anything else (a crash, a sanitizer report,
// another exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "ir/program.h"
#include "lang/load.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = std::make_shared<axon::SourceFile>();
  file->path = "fuzz.py";
  file->text.assign(reinterpret_cast<const char*>(data), size);
  try {
    axon::ir::Program program = axon::lang::compile_source(file);
    (void)axon::ir::print_function(program.kernel);
    (void)axon::format_diagnostic(program.kernel.loc, "check formatting");
  } catch (const axon::UserError& e) {
    (void)e.format();
  }
  return 0;
}
