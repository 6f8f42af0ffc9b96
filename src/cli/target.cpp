#include "cli/target.h"

#include "search/target.h"
#include "targets/register.h"

namespace axon::cli {

Word target_word(const ParsedArgs& args, const std::string& fallback, const SourceLoc& command_loc) {
  if (const Word* w = args.last("--target")) return *w;
  return {fallback, command_loc};
}

hw::Description load_target(const ParsedArgs& args, const std::string& fallback) {
  targets::register_all();
  const Word* w = args.last("--target");
  return search::load_description(w ? w->text : fallback, w ? w->loc : SourceLoc{});
}

}  // namespace axon::cli
