#include "targets/register.h"

#include <mutex>

#include "targets/cpu.h"

namespace axon::targets {

void register_all() {
  static std::once_flag once;
  std::call_once(once, [] {
    search::register_target("cpu", make_cpu_target);
    // "cpu" is hw/x86-avx512.json on a CPU with AVX-512, else hw/x86-avx2.json.
    search::register_target_name("cpu", [](const std::string& hw) {
      std::string wide = hw + "/x86-avx512.json";
      return cpu_supports(hw::load_description(wide)) ? wide : hw + "/x86-avx2.json";
    });
    // Trainium's description: `axon lower` prints its listing; no search target yet.
    search::register_target_name("trn1", [](const std::string& hw) { return hw + "/trn1.json"; });
  });
}

}  // namespace axon::targets
