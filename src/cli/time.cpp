// axon time: time an NKI instruction trace with the trn1 timing model.
#include <fstream>
#include <iomanip>
#include <iostream>

#include "cli/commands.h"
#include "search/target.h"
#include "time/trn1.h"

namespace axon::cli {
namespace {

int time_trace(const Word& command, const ParsedArgs& args) {
  const Word& file = program_file(args, command);
  // A short name is a description of the hw folder (hw/NAME.json).
  std::string hw = option_text(args, "--hw").value_or("trn1");
  if (hw.size() < 5 || hw.compare(hw.size() - 5, 5, ".json") != 0) hw = search::hw_dir() + "/" + hw + ".json";
  hw::Description description = hw::load_description(hw);
  timing::Trn1Params params = timing::trn1_params(description);
  timing::Trace trace = timing::load_trace(file.text);
  std::optional<std::string> chrome = option_text(args, "--chrome");
  timing::Timing t = timing::time_trace(trace, params, chrome.has_value());
  if (chrome) {
    std::ofstream out(*chrome);
    if (!out) throw UserError(args.last("--chrome")->loc, "cannot write " + *chrome);
    timing::write_chrome_trace(trace, t, out);
    if (!out.flush()) throw UserError(args.last("--chrome")->loc, "cannot write " + *chrome);
  }
  if (args.has("--json")) {
    std::cout << timing::timing_json(t) << "\n";
    return 0;
  }
  std::cout << std::fixed << std::setprecision(3) << "simulated time " << t.total_ns * 1e-3 << " us ("
            << t.total_ns * 1e-6 << " ms; launch " << t.launch_ns * 1e-3 << " us), " << t.instructions
            << " instructions\n";
  for (const timing::EngineUsage& e : t.engines)
    std::cout << "  " << std::left << std::setw(7) << e.name << std::right << " busy " << std::setw(12)
              << e.busy_ns * 1e-3 << " us  " << std::setw(6) << std::setprecision(1) << e.utilization * 100 << "%  "
              << e.instructions << " instructions\n"
              << std::setprecision(3);
  std::cout << "  dma: " << t.dma_bytes << " bytes, " << t.dma_descriptors << " descriptors, " << t.dma_transfers
            << " transfers over " << t.dma_queue_busy_ns.size() << " queues\n"
            << "  (modelled in " << t.schedule_seconds << " s; a model, not a measurement: see README)\n";
  return 0;
}

}  // namespace

const Command& time_command() {
  static const Command command{
      "time",
      "time an NKI instruction trace with the trn1 timing model",
      "usage: axon time TRACE.jsonl [--hw DESCRIPTION] [--chrome OUT.json] [--json]\n\n"
      "Times the instruction trace the NKI simulator records (sim/nki/axon_nki_run.py --trace, add --dry\n"
      "for bench sizes) on a model of one Trainium1 NeuronCore-v2: Tensor, Vector, Scalar and GpSimd as\n"
      "in-order queues in parallel, dependences between them from the operands' regions, 16 DMA queues,\n"
      "SBUF/PSUM capacity and the shared engine ports; every parameter is in the description's \"timing\"\n"
      "object (default hw/trn1.json) with its source. Prints the simulated time, each engine's busy time\n"
      "and utilization and the DMA traffic. It is a model, not a measurement: see the README.\n",
      {{"--hw", "DESCRIPTION", "the description whose \"timing\" parameters to use (default trn1)"},
       {"--chrome", "OUT.json",
        "write the timeline as a Chrome trace (one track per engine and DMA\nqueue; "
        "open it in Perfetto or chrome://tracing)"},
       {"--json", "", "print the timing as JSON instead of text"},
       {"--help", "", "show this help"}},
      time_trace};
  return command;
}

}  // namespace axon::cli
