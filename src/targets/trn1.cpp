#include "targets/trn1.h"

#include <filesystem>

#include "emit/trn1.h"
#include "support/files.h"
#include "tune/cache.h"

namespace axon::targets {
namespace {

class Trn1Listing : public search::TargetKernel {
 public:
  explicit Trn1Listing(std::string text) : text_(std::move(text)), identity_(tune::text_digest(text_)) {}
  std::string identity() const override { return identity_; }
  std::string tilings() const override { return "-"; }
  std::string stages_markdown() const override { return "```\n" + text_ + "```\n"; }
  std::vector<fuse::RowGroup> row_groups() const override { return {}; }
  const std::string& source() const override { return text_; }
  std::string code() const override { return text_; }
  std::map<std::string, std::string> files() const override { return {{"kernel.txt", text_}}; }
  search::Estimate estimate() const override { return {}; }

 private:
  std::string text_, identity_;
};

const char* const kNoRunner =
    "Trainium kernels are printed as instruction listings; NKI emission and its simulator are not built yet";

class Trn1Target : public search::Target {
 public:
  Trn1Target(const hw::Description& description, smt::Prover& prover)
      : description_(description), synth_(description_, prover) {}

  const hw::Description& description() const override { return description_; }
  std::string cannot_run() const override { return kNoRunner; }
  std::string cannot_build() const override { return kNoRunner; }
  const isa::Synthesizer& synthesizer() const override { return synth_; }

  // One kernel per plan: the listing has no tile space of its own yet.
  std::vector<search::KernelPtr> kernels(const tile::Plan& plan, const ir::Function& fn, const search::PointRequest&,
                                         double& points) override {
    points += 1;
    return {std::make_shared<Trn1Listing>(emit::lower_trn1(plan, fn, description_, synth_))};
  }
  search::KernelPtr with_fault(const search::TargetKernel&, const std::string&) const override { return nullptr; }

  std::vector<search::Built> compile(const std::vector<const search::TargetKernel*>& kernels, const std::string&, int,
                                     const std::function<void()>& progress) override {
    std::vector<search::Built> built(kernels.size(), search::Built{false, {}, kNoRunner});
    progress();
    return built;
  }
  search::Built compile_alone(const search::TargetKernel&, const std::string&) override {
    return {false, {}, kNoRunner};
  }
  std::vector<std::string> artifact_files() const override { return {}; }
  std::vector<std::string> printed_files() const override { return {"kernel.txt"}; }
  tune::RunResult run(const search::TargetKernel&, const search::Artifact&, const search::RunSpec&) override {
    tune::RunResult r;
    r.status = tune::RunResult::Status::Failed;
    r.message = kNoRunner;
    return r;
  }

 private:
  hw::Description description_;
  isa::Synthesizer synth_;
};

}  // namespace

std::unique_ptr<search::Target> make_trn1_target(const hw::Description& description, smt::Prover& prover) {
  return std::make_unique<Trn1Target>(description, prover);
}

}  // namespace axon::targets
