// The language front end: a program file to an ir::Program.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "ir/program.h"

namespace axon::lang {

/// Files larger than this are rejected (a kernel is a page of NumPy).
constexpr size_t kMaxFileBytes = 16 << 20;

/// Values for a kernel's non-tensor parameters (`eps: float = 1e-5`) given
/// outside the file, e.g. by `--param eps=1e-4`: the text as written, and
/// where it was written, for errors. A parameter not given takes its default.
struct ParamValue {
  std::string text;
  SourceLoc loc;
};
using ParamValues = std::map<std::string, ParamValue>;

/// Reads, parses and lowers `path`. The kernel is `entry`, else the last def
/// in the file. Every problem with the input is a UserError with a location.
/// `entry_loc` is where the entry name was written (e.g. in the command line).
ir::Program load_program(const std::string& path, const std::optional<std::string>& entry = std::nullopt,
                         const SourceLoc& entry_loc = {}, const ParamValues& params = {});

/// The same for text already in memory (tests, fuzzing).
ir::Program compile_source(const std::shared_ptr<const SourceFile>& file,
                           const std::optional<std::string>& entry = std::nullopt, const SourceLoc& entry_loc = {},
                           const ParamValues& params = {});

/// A Python identifier (ASCII): names of sizes, parameters, instructions.
bool is_identifier(const std::string& text);

/// Parses a type annotation such as "f32[M, 4]"; `loc` is the string literal's
/// location, so errors point into the string.
ir::TensorType parse_annotation(const std::string& text, const SourceLoc& loc);

}  // namespace axon::lang
