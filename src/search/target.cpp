#include "search/target.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>

namespace axon::search {
namespace {

struct Registry {
  std::mutex lock;
  std::map<std::string, TargetFactory> kinds;
  std::map<std::string, NameResolver> names;
  std::string hw_dir;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void register_target(const std::string& kind, TargetFactory factory) {
  std::lock_guard<std::mutex> guard(registry().lock);
  registry().kinds[kind] = std::move(factory);
}

void register_target_name(const std::string& name, NameResolver resolver) {
  std::lock_guard<std::mutex> guard(registry().lock);
  registry().names[name] = std::move(resolver);
}

std::vector<std::string> target_names() {
  std::lock_guard<std::mutex> guard(registry().lock);
  std::vector<std::string> names;
  for (const auto& [name, _] : registry().names) names.push_back(name);
  return names;
}

void set_hw_dir(const std::string& dir) {
  std::lock_guard<std::mutex> guard(registry().lock);
  registry().hw_dir = dir;
}

std::string hw_dir() {
  {
    std::lock_guard<std::mutex> guard(registry().lock);
    if (!registry().hw_dir.empty()) return registry().hw_dir;
  }
  if (const char* env = std::getenv("AXON_HW_DIR"); env && *env) return env;
  return AXON_HW_DIR;
}

hw::Description load_description(const std::string& name_or_path, const SourceLoc& loc) {
  NameResolver resolver;
  {
    std::lock_guard<std::mutex> guard(registry().lock);
    auto it = registry().names.find(name_or_path);
    if (it != registry().names.end()) resolver = it->second;
  }
  if (resolver) return hw::load_description(resolver(hw_dir()));
  if (!std::filesystem::exists(name_or_path)) {
    std::string known;
    for (const std::string& n : target_names()) known += (known.empty() ? "" : ", ") + n;
    throw UserError(loc, "unknown target '" + name_or_path + "': expected " + known + (known.empty() ? "" : " or ") +
                             "a description file (.json)");
  }
  return hw::load_description(name_or_path);
}

std::unique_ptr<Target> make_target(const hw::Description& description, smt::Prover& prover) {
  TargetFactory factory;
  {
    std::lock_guard<std::mutex> guard(registry().lock);
    auto it = registry().kinds.find(description.target);
    if (it != registry().kinds.end()) factory = it->second;
  }
  if (!factory)
    throw UserError({}, description.path + ": axon has no search target of kind '" + description.target +
                            "' yet (axon lower prints its instruction-level program)");
  return factory(description, prover);
}

}  // namespace axon::search
