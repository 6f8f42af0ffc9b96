#include "search/api.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "eval/bind.h"
#include "ir/program.h"
#include "lang/load.h"
#include "search/pipeline.h"
#include "smt/prover.h"
#include "support/build_id.h"
#include "support/files.h"
#include "tile/plan.h"
#include "tune/cache.h"

namespace axon::search {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError({}, "cannot read '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The file a command's first word runs: itself when it holds a '/', else the
// first executable of that name on PATH; with its size and modification time,
// so a compiler replaced in place is another compiler. "not found" otherwise.
std::string resolved_executable(const std::string& command) {
  std::string word = command.substr(0, command.find(' '));
  size_t start = command.find_first_not_of(' ');
  if (start != std::string::npos) word = command.substr(start, command.find(' ', start) - start);
  std::vector<fs::path> tries;
  if (word.find('/') != std::string::npos) {
    tries.push_back(word);
  } else if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');) tries.push_back(fs::path(dir.empty() ? "." : dir) / word);
  }
  for (const fs::path& p : tries) {
    std::error_code ec;
    fs::path real = fs::canonical(p, ec);
    if (ec || access(real.c_str(), X_OK) != 0 || !fs::is_regular_file(real, ec)) continue;
    auto size = fs::file_size(real, ec);
    auto time = fs::last_write_time(real, ec).time_since_epoch().count();
    return real.string() + " (" + std::to_string(size) + " bytes, mtime " + std::to_string(time) + ")";
  }
  return "not found";
}

// The cache's key: everything the output folder depends on, so that a hit
// writes exactly what a fresh search would.
//   program   the entry's name; every parameter in order with its dtype and
//             shape, used or not; every non-tensor parameter's value (its
//             default or --param); and the whole source file as written
//             (helpers, constants, SIZES): no canonical form that could
//             forget a detail, at the price of a miss for an edited comment;
//   sizes     every concrete size;
//   target    the description's name, and a digest of its file and of the
//             prelude it pulls in;
//   compiler  $AXON_CXX as written, the file it resolves to on PATH and its
//             --version; axon's build-id; and every search setting that can
//             change the choice (Options::key_text).
tune::CacheKey cache_key(const ir::Program& program, const ir::Dims& dims, const hw::Description& target,
                         const Options& options) {
  tune::CacheKey key;
  const ir::Function& fn = program.kernel;
  key.program = "entry " + fn.name + "\n";
  for (const ir::Param& p : fn.params) key.program += "param " + p.name + ": " + p.type.str() + "\n";
  for (const ir::Setting& s : fn.settings) key.program += "setting " + s.name + " = " + s.value + "\n";
  key.program += "source " + std::to_string(program.source ? program.source->text.size() : 0) + "\n";
  if (program.source) key.program += program.source->text;
  key.sizes = dims_text(dims);
  key.target = target.name;
  key.hw_digest = tune::file_digest(target.path);
  if (!target.prelude.empty()) {
    std::string dir = target.path.substr(0, target.path.find_last_of('/') + 1);
    key.hw_digest += " prelude " + tune::file_digest(dir + target.prelude);
  }
  std::string cxx = tune::compiler_command();
  key.compiler = "compiler " + cxx + " at " + resolved_executable(cxx) + ": " + tune::compiler_version(cxx) +
                 "\naxon " + executable_identity() + "\nsearch " + options.key_text();
  return key;
}

// The cache the request names; nullopt when it is off. An unusable default
// cache is a warning (the search runs without it); an unusable path is an error.
std::optional<tune::Cache> open_cache(const OptimizeRequest& request, Observer& observer) {
  if (request.cache == OptimizeRequest::Cache::Off) return std::nullopt;
  std::optional<tune::Cache> cache;
  if (request.cache == OptimizeRequest::Cache::Path) {
    try {
      cache.emplace(request.cache_path);
    } catch (const UserError& e) {
      throw UserError(request.cache_loc, e.what());
    }
  } else {
    try {
      cache.emplace(tune::default_cache_path());
    } catch (const UserError& e) {
      observer.warning(std::string("running without the kernel cache: ") + e.what());
      return std::nullopt;
    }
  }
  // Said with --quiet too: quiet silences progress, not problems.
  if (!cache->warning().empty()) observer.warning(cache->warning());
  return cache;
}

// The output folder's files besides the target's own.
const std::vector<std::string> kReports = {"report.md", "report.html", "search.json"};

// Every file of the output folder, in the order the messages list them.
std::vector<std::string> output_files(const Target& target) {
  std::vector<std::string> names = target.printed_files();
  for (const std::string& name : target.artifact_files()) names.push_back(name);
  names.insert(names.end(), kReports.begin(), kReports.end());
  return names;
}

std::string file_list(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ",") + n;
  return list;
}

void commit(StagedFolder& out, const SourceLoc& loc) {
  try {
    out.commit();
  } catch (const FileError& e) {
    throw UserError(loc, e.what());
  }
}

std::string ms_text(double seconds) {
  std::ostringstream t;
  t << std::setprecision(4) << seconds * 1e3;
  return t.str();
}

std::string speedup_text(double numpy_seconds, double seconds) {
  if (numpy_seconds <= 0 || seconds <= 0) return "";
  std::ostringstream t;
  t << "; " << std::setprecision(3) << numpy_seconds / seconds << "x NumPy (" << ms_text(numpy_seconds) << " ms)";
  return t.str();
}

// The chosen kernel, answered from the cache: the files as the search wrote
// them, into the staged folder. An entry without every file is no answer:
// it is removed, and the search runs again.
std::optional<OptimizeSummary> answer_from_cache(tune::Cache& cache, const tune::CacheKey& key,
                                                 const std::vector<std::string>& names, StagedFolder& out,
                                                 const OptimizeRequest& request, Observer& observer,
                                                 Clock::time_point t0) {
  std::optional<tune::CachedKernel> hit = cache.lookup(key);
  if (!hit) {
    if (!cache.warning().empty()) observer.warning(cache.warning());
    return std::nullopt;
  }
  std::string missing;
  for (const std::string& name : names)
    if (!hit->files.count(name)) missing += (missing.empty() ? "" : ", ") + name;
  if (!missing.empty()) {
    cache.forget(key);
    observer.warning("kernel cache " + cache.path() + ": the entry lacked " + missing +
                     "; removed it and searching again");
    return std::nullopt;
  }
  OptimizeSummary summary;
  std::string timing = "measured";
  for (auto& [name, bytes] : hit->files) {
    if (std::find(names.begin(), names.end(), name) == names.end()) continue;
    if (name == "search.json") {  // as the search wrote it, but answered from the cache
      nlohmann::ordered_json j = nlohmann::ordered_json::parse(bytes, nullptr, false);
      if (j.is_object()) {
        j["cache"] = "hit";
        if (j.contains("timing") && j["timing"].is_string()) timing = j["timing"].get<std::string>();
        if (j.contains("numpy") && j["numpy"].is_object() && j["numpy"].contains("median_seconds"))
          summary.numpy_seconds = j["numpy"]["median_seconds"].get<double>();
        bytes = j.dump(2) + "\n";
      }
    }
    write_user_file((fs::path(out.path()) / name).string(), bytes);
  }
  commit(out, request.out_loc);
  summary.out = request.out;
  summary.candidate = hit->candidate;
  summary.seconds = hit->seconds;
  summary.from_cache = true;
  summary.cache_path = cache.path();
  std::ostringstream line;
  line << "chose " << hit->candidate << ": "
       << (timing == "simulated" ? "simulated " : timing == "none" ? "score " : "median ") << ms_text(hit->seconds)
       << (timing == "none" ? "" : " ms")
       << speedup_text(summary.numpy_seconds, hit->seconds) << "; wrote " << request.out << "/{" << file_list(names)
       << "} from the cache " << cache.path() << " (" << std::setprecision(3) << seconds_since(t0) << " s)\n";
  summary.line = line.str();
  return summary;
}

// What optimize prints before its last line: the chosen kernel's time and
// spread against NumPy's, and the variant it computes with the proof that it
// equals the program.
std::string details_text(const SearchResult& r, const std::string& out) {
  const Candidate& best = *r.best;
  std::ostringstream t;
  if (r.scoring.empty())
    t << "\nkernel: " << best.name << ", median " << ms_text(best.seconds) << " ms (timed calls "
      << ms_text(best.seconds_min) << " to " << ms_text(best.seconds_max) << " ms)\n";
  else
    t << "\nkernel: " << best.name << ", " << score_text(r, best.seconds) << "\nchosen by " << r.scoring << "\n";
  if (r.numpy.measured)
    t << "NumPy, same file and inputs: median " << ms_text(r.numpy.median) << " ms: the kernel is "
      << std::setprecision(3) << r.numpy.median / best.seconds << "x faster\n";
  else
    t << "NumPy: not timed (" << r.numpy.why_not << ")\n";
  for (const BaselineTime& b : r.baselines) t << "baseline " << baseline_text(r, b) << "\n";
  if (best.variant == 0 || !r.variant_proof) {
    t << "rewrites: none (the program as written; " << r.variants.proved << " rewrite(s) proved while exploring)\n";
  } else {
    t << "rewrites: the program == variant " << best.variant << ", " << smt::verdict_name(r.variant_proof->verdict)
      << " (" << r.variant_proof->method << "):\n";
    std::istringstream lines(ir::print_numpy(best.fn));
    for (std::string line; std::getline(lines, line);) t << "    " << line << "\n";
  }
  t << "code: " << out << "/" << r.code_file << "; the proofs and every candidate: " << out << "/report.md\n\n";
  return t.str();
}

std::optional<int64_t> parse_int(const std::string& text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return std::stoll(text);
}

// Where a failed search's report goes: beside OUT/.
std::string failed_folder(std::string out) {
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out + ".failed";
}

}  // namespace

ir::Dims parse_sizes(const ir::Program& program, const std::string& text,
                     const std::function<SourceLoc(size_t offset)>& loc_at) {
  std::vector<std::string> used = program.size_names();
  auto is_used = [&](const std::string& n) { return std::find(used.begin(), used.end(), n) != used.end(); };
  ir::Dims dims;
  std::map<std::string, bool> explicit_names;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t comma = text.find(',', begin);
    std::string item = text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    SourceLoc loc = loc_at(begin);
    size_t eq = item.find('=');
    if (eq == std::string::npos) {
      auto preset = program.size_presets.find(item);
      if (preset == program.size_presets.end()) {
        std::string known;
        for (const auto& [name, _] : program.size_presets) known += (known.empty() ? "" : ", ") + name;
        throw UserError(loc, "bad --dims entry '" + item + "': expected NAME=INTEGER" +
                                 (known.empty() ? std::string(" (the file has no SIZES presets)")
                                                : " or a preset (" + known + ")"));
      }
      for (const auto& [name, value] : preset->second)
        if (is_used(name)) dims[name] = value;
    } else {
      std::string name = item.substr(0, eq);
      std::string digits = item.substr(eq + 1);
      SourceLoc value_loc = loc_at(begin + eq + 1);
      bool negative = !digits.empty() && digits[0] == '-';
      auto value = parse_int(negative ? digits.substr(1) : digits);
      if (!negative && !value && !digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos)
        throw UserError(value_loc, "size " + name + "=" + digits + " is too large");
      if (name.empty() || !value)
        throw UserError(loc, "bad --dims entry '" + item + "': expected NAME=INTEGER, e.g. M=64");
      if (negative || *value < 1) throw UserError(value_loc, "size " + name + " must be at least 1");
      if (explicit_names[name]) throw UserError(loc, "size " + name + " is given twice");
      explicit_names[name] = true;
      if (!is_used(name)) {
        std::string known;
        for (const std::string& n : used) known += (known.empty() ? "" : ", ") + n;
        throw UserError(
            loc, "kernel '" + program.kernel.name + "' has no size '" + name + "'" +
                     (known.empty() ? std::string(" (it has no symbolic sizes)") : " (its sizes: " + known + ")"));
      }
      dims[name] = *value;
    }
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return dims;
}

ir::Dims bind_sizes(const ir::Program& program, const std::string& spec, const std::map<std::string, int64_t>& sizes) {
  ir::Dims given = spec.empty() ? ir::Dims{} : parse_sizes(program, spec, [](size_t) { return SourceLoc{}; });
  std::vector<std::string> used = program.size_names();
  for (const auto& [name, value] : sizes) {
    if (std::find(used.begin(), used.end(), name) == used.end()) {
      std::string known;
      for (const std::string& n : used) known += (known.empty() ? "" : ", ") + n;
      throw UserError({},
                      "kernel '" + program.kernel.name + "' has no size '" + name + "'" +
                          (known.empty() ? std::string(" (it has no symbolic sizes)") : " (its sizes: " + known + ")"));
    }
    if (value < 1) throw UserError({}, "size " + name + " must be at least 1, got " + std::to_string(value));
    given[name] = value;
  }
  return eval::bind_dims(program.kernel, given,
                         std::vector<std::optional<eval::ProvidedInput>>(program.kernel.params.size()));
}

ir::Program load_program(const std::string& file, const std::optional<std::string>& text,
                         const std::optional<std::string>& entry, const SourceLoc& entry_loc) {
  if (!text) return lang::load_program(file, entry, entry_loc);
  auto source = std::make_shared<SourceFile>();
  source->path = file;
  source->text = *text;
  return lang::compile_source(source, entry, entry_loc);
}

OptimizeSummary optimize(const OptimizeRequest& request, Observer* observer) {
  ir::Program program = load_program(request.file, request.text, request.entry);
  tile::check_plan_size(program.kernel);
  ir::Dims dims = bind_sizes(program, request.dims, request.sizes);
  return optimize_program(program, dims, request, observer);
}

OptimizeSummary optimize_program(const ir::Program& program, const ir::Dims& dims, const OptimizeRequest& request,
                                 Observer* observer_or_null) {
  Observer silent;
  Observer& observer = observer_or_null ? *observer_or_null : silent;
  if (request.out.empty()) throw UserError(request.out_loc, "optimize needs an output folder");
  hw::Description description = load_description(request.target, request.target_loc);
  smt::Prover prover;
  std::unique_ptr<Target> target;
  try {
    target = make_target(description, prover);
  } catch (const UserError& e) {
    throw UserError(request.target_loc, e.what());
  }
  if (std::string why = target->cannot_build(); !why.empty())
    throw UserError(request.target_loc, "optimize cannot search for " + description.name + " yet: " + why +
                                            " (axon lower prints its instruction-level program)");
  Options options = request.options.with_defaults();

  // OUT/ is replaced whole, at the end, by what this run wrote (support/files.h).
  Clock::time_point t0 = Clock::now();
  std::vector<std::string> names = output_files(*target);
  std::vector<std::string> own = names;
  own.push_back("candidates");
  std::optional<StagedFolder> staged;
  try {
    staged.emplace(request.out, own);
  } catch (const FileError& e) {
    throw UserError(request.out_loc, e.what());
  }
  std::optional<tune::Cache> cache = open_cache(request, observer);
  tune::CacheKey key = cache_key(program, dims, description, options);
  if (cache)
    if (auto hit = answer_from_cache(*cache, key, names, *staged, request, observer, t0)) return *hit;

  std::string work = (fs::path(staged->path()) / "candidates").string();
  Search search(program, dims, *target, options, cache ? &*cache : nullptr, key, work, observer);
  if (!search.run()) {
    // What the search did, its report and candidates, goes beside OUT/,
    // which stays as it was.
    std::string failed = failed_folder(request.out);
    std::string cannot_run = target->cannot_run();
    if (cannot_run.empty()) search.write_failure_report(staged->path());
    try {
      staged->commit_to(failed);
    } catch (const FileError& e) {
      failed = "(nowhere: " + std::string(e.what()) + ")";
    }
    std::string where = failed + "/candidates";
    if (!cannot_run.empty())
      throw UserError(request.target_loc, "this machine cannot run code for " + description.name + " (" + cannot_run +
                                              "): the candidates were emitted and compiled in " + where +
                                              " but none could be validated or timed; " + request.out +
                                              " was left as it was");
    throw NoValidKernelError(program.kernel.loc, "no candidate kernel was valid; " + search.no_valid_kernel_text() +
                                                     "; see " + failed + "/report.md and " + where + " (" +
                                                     request.out + " was left as it was)");
  }
  search.write_output(staged->path());
  const SearchResult& r = search.result();
  const std::vector<std::string>& written = names;
  if (cache) {
    tune::CachedKernel cached;
    for (const std::string& name : written) cached.files[name] = read_file((fs::path(staged->path()) / name).string());
    cached.candidate = r.best->name;
    cached.seconds = r.best->seconds;
    cached.summary = cached.files["search.json"];
    cache->store(key, cached);
  }
  commit(*staged, request.out_loc);

  OptimizeSummary summary;
  summary.details = details_text(r, request.out);
  summary.out = request.out;
  summary.candidate = r.best->name;
  summary.seconds = r.best->seconds;
  summary.numpy_seconds = r.numpy.measured ? r.numpy.median : 0;
  summary.cache_path = cache ? cache->path() : "";
  std::ostringstream line;
  line << "chose " << r.best->name << ": ";
  if (r.scoring.empty())
    line << "median " << ms_text(r.best->seconds) << " ms (" << ms_text(r.best->seconds_min) << " to "
         << ms_text(r.best->seconds_max) << ")" << speedup_text(summary.numpy_seconds, r.best->seconds);
  else
    line << score_text(r, r.best->seconds);
  line
       << "; wrote " << request.out << "/{" << file_list(written) << "} (" << std::setprecision(3) << r.phases.total
       << " s, " << target->synthesizer().candidates_proved() << " lowerings proved)\n";
  summary.line = line.str();
  return summary;
}

}  // namespace axon::search
