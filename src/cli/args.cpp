#include "cli/args.h"

#include <sstream>

namespace axon::cli {

const Word* ParsedArgs::last(const std::string& name) const {
  auto it = options.find(name);
  return it == options.end() || it->second.empty() ? nullptr : &it->second.back();
}

std::vector<Word> command_line_words(int argc, char** argv) {
  auto file = std::make_shared<SourceFile>();
  file->path = "<command line>";
  file->text = "axon";
  std::vector<Word> words;
  for (int i = 1; i < argc; ++i) {
    file->text += ' ';
    int col = static_cast<int>(file->text.size()) + 1;
    std::string arg = argv[i];
    file->text += arg;
    words.push_back({arg, {nullptr, 1, col}});
  }
  for (Word& w : words) w.loc.file = file;
  return words;
}

SourceLoc loc_in(const Word& word, size_t offset) {
  SourceLoc loc = word.loc;
  loc.col += static_cast<int>(offset);
  return loc;
}

ParsedArgs parse_options(const std::vector<Word>& words, const std::vector<OptionSpec>& specs) {
  ParsedArgs parsed;
  for (size_t i = 0; i < words.size(); ++i) {
    const Word& w = words[i];
    if (w.text.size() < 2 || w.text[0] != '-' || w.text == "--") {
      parsed.positional.push_back(w);
      continue;
    }
    size_t eq = w.text.find('=');
    std::string name = w.text.substr(0, eq);
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& s : specs)
      if (s.name == name) spec = &s;
    if (!spec) {
      std::string known;
      for (const OptionSpec& s : specs) known += (known.empty() ? "" : ", ") + s.name;
      throw UserError(w.loc, "unknown option '" + name + "' (this command takes: " + known + ")");
    }
    if (!spec->repeatable && parsed.has(name)) throw UserError(w.loc, "option " + name + " given twice");
    Word value{"", w.loc};
    if (spec->metavar.empty()) {
      if (eq != std::string::npos) throw UserError(w.loc, "option " + name + " takes no value");
    } else if (eq != std::string::npos) {
      value = {w.text.substr(eq + 1), loc_in(w, eq + 1)};
    } else if (i + 1 < words.size()) {
      value = words[++i];
    } else {
      throw UserError(w.loc, "option " + name + " needs a value (" + spec->metavar + ")");
    }
    if (!spec->metavar.empty() && value.text.empty())
      throw UserError(value.loc, "option " + name + " needs a value (" + spec->metavar + ")");
    parsed.options[name].push_back(value);
  }
  return parsed;
}

std::string options_help(const std::vector<OptionSpec>& specs) {
  std::ostringstream out;
  for (const OptionSpec& s : specs) {
    std::string head = "  " + s.name + (s.metavar.empty() ? "" : " " + s.metavar);
    out << head << std::string(head.size() < 28 ? 28 - head.size() : 2, ' ');
    for (char ch : s.help) {  // a help text of several lines keeps its column
      out << ch;
      if (ch == '\n') out << std::string(28, ' ');
    }
    out << '\n';
  }
  return out.str();
}

}  // namespace axon::cli
