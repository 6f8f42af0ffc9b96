#include "cli/target.h"

#include <cstdlib>
#include <filesystem>

namespace axon::cli {

namespace {

std::string hw_dir() {
  if (const char* env = std::getenv("AXON_HW_DIR"); env && *env) return env;
  return AXON_HW_DIR;
}

}  // namespace

bool cpu_supports(const hw::Description& d) {
  const std::string& f = d.requires_cpu;
  if (f.empty()) return true;
  __builtin_cpu_init();
  if (f == "avx512f") return __builtin_cpu_supports("avx512f");
  if (f == "avx2") return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (f == "sse2") return __builtin_cpu_supports("sse2");
  return false;
}

hw::Description load_target(const ParsedArgs& args, const std::string& fallback) {
  const Word* w = args.last("--target");
  std::string name = w ? w->text : fallback;
  std::string path;
  if (name == "cpu") {
    path = hw_dir() + "/x86-avx512.json";
    hw::Description wide = hw::load_description(path);
    if (cpu_supports(wide)) return wide;
    path = hw_dir() + "/x86-avx2.json";
  } else if (name == "trn1") {
    path = hw_dir() + "/trn1.json";
  } else {
    path = name;
    if (!std::filesystem::exists(path))
      throw UserError(w ? w->loc : SourceLoc{},
                      "unknown target '" + name + "': expected cpu, trn1 or a description file (.json)");
  }
  return hw::load_description(path);
}

}  // namespace axon::cli
