#include "targets/register.h"

#include <mutex>

#include "targets/cpu.h"
#include "targets/trn1.h"

namespace axon::targets {

void register_all() {
  static std::once_flag once;
  std::call_once(once, [] {
    search::register_target("cpu", make_cpu_target);
    // "cpu": the AVX-512 description of this CPU's vendor, else AVX2 (cpu_description_path).
    search::register_target_name("cpu", cpu_description_path);
    search::register_target("trn1", make_trn1_target);
    search::register_target_name("trn1", [](const std::string& hw) { return hw + "/trn1.json"; });
  });
}

}  // namespace axon::targets
