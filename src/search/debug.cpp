#include "search/debug.h"

#include <cstdlib>
#include <iostream>

namespace axon::search {

int debug_level() {
  const char* env = std::getenv("AXON_DEBUG");
  if (!env || !*env) return 0;
  char* end = nullptr;
  long level = std::strtol(env, &end, 10);
  return *end == '\0' && level > 0 ? static_cast<int>(level) : 0;
}

void debug_dump(int level, const std::string& stage, const std::string& text) {
  if (debug_level() < level) return;
  std::string body = text;
  while (!body.empty() && body.back() == '\n') body.pop_back();
  std::cerr << "axon: [" << stage << "] " << (body.find('\n') == std::string::npos ? "" : "\n") << body << "\n";
}

}  // namespace axon::search
