// libFuzzer target: any bytes as an .npy file. Parsing must either succeed
// or raise an NpyError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "eval/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    axon::eval::Tensor t = axon::eval::parse_npy(std::string(reinterpret_cast<const char*>(data), size), "fuzz.npy");
    (void)axon::eval::to_npy_bytes(t, axon::eval::NpyDtype::F16);
  } catch (const axon::eval::NpyError&) {
  }
  return 0;
}
