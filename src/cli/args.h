// Command-line parsing with source locations: the command line is treated as
// a one-line source file, so a bad argument gets the same
// "<command line>:1:col: error:" message and caret as a bad program.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "support/diag.h"

namespace axon::cli {

struct Word {
  std::string text;
  SourceLoc loc;
};

struct OptionSpec {
  std::string name;     // "--dims"
  std::string metavar;  // "M=64,K=32"; empty for a flag
  std::string help;
  bool repeatable = false;
};

struct ParsedArgs {
  std::vector<Word> positional;
  std::map<std::string, std::vector<Word>> options;  // flags hold one empty Word per use

  bool has(const std::string& name) const { return options.count(name) > 0; }
  const Word* last(const std::string& name) const;
};

/// argv[1..] as words with locations in one "<command line>" source.
std::vector<Word> command_line_words(int argc, char** argv);

/// Parses `words` against `specs` ("--x v" and "--x=v"). Unknown options,
/// missing values and repeated single options are UserErrors.
ParsedArgs parse_options(const std::vector<Word>& words, const std::vector<OptionSpec>& specs);

/// "  --dims M=64,K=32   help text" lines for --help.
std::string options_help(const std::vector<OptionSpec>& specs);

/// The location of byte `offset` inside a word (for errors inside a value).
SourceLoc loc_in(const Word& word, size_t offset);

}  // namespace axon::cli
