// predictor/donated_copies.h: which donated parameters' copies the
// partitioned program removes.
#include "predictor/donated_copies.h"

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "parsers/hlo_text_program.h"
#include "parsers/source_text.h"

namespace memplan::predictor {
namespace {

// A weight w updated in place (upd) from its gradient gw, whose copy c is
// also read by the backward dx that gw does not depend on; gx, a second
// gradient, depends on dx.
constexpr char kProgram[] = R"(HloModule m

ENTRY %main (w: f32[8], x: f32[8]) -> f32[8] {
  %w = f32[8] parameter(0)
  %x = f32[8] parameter(1)
  %c = f32[8] copy(%w)
  %y = f32[8] multiply(%c, %x)
  %gw = f32[8] multiply(%y, %x)
  %dx = f32[8] multiply(%y, %c)
  %gx = f32[8] negate(%dx)
  %upd = f32[8] subtract(%w, %gw)
  ROOT %out = f32[8] add(%upd, %gx)
}
)";

class RemovedPerDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto source = parsers::SourceText::FromString("t.hlo", kProgram);
    absl::StatusOr<ir::Program> p = parsers::ParseHloTextProgram({source}, ir::Program());
    ASSERT_TRUE(p.ok()) << p.status();
    program_ = *std::move(p);
    for (const ir::Instruction& i : program_.module.instructions()) id_[std::string(i.name)] = i.id;
    copy_.update = id_["upd"];
    copy_.outside_readers = {id_["dx"]};
    // All-reduces of gw (read by upd) and gx (read by out).
    collectives_.resize(2);
    collectives_[0].kind = collectives_[1].kind = CollectiveKind::kAllReduce;
    collectives_[0].source = id_["gw"], collectives_[0].at = id_["upd"];
    collectives_[1].source = id_["gx"], collectives_[1].at = id_["out"];
  }
  CombinedGroups Groups(std::vector<std::vector<size_t>> members) {
    CombinedGroups g;
    g.groups.resize(members.size());
    g.members = SharedList<std::vector<size_t>>(std::move(members));
    return g;
  }
  ir::Program program_;
  std::map<std::string, ir::InstructionId> id_;
  DonatedCopy copy_;
  std::vector<PredictedCollective> collectives_;
};

// Combined, the update reads gx's all-reduce too, which depends on dx:
// the copy goes.
TEST_F(RemovedPerDeviceTest, ACombinedAllReduceOrdersTheReaderBeforeTheUpdate) {
  std::vector<uint8_t> removed;
  RemovedPerDevice(program_.module, {copy_}, Groups({{0, 1}}), collectives_, removed);
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0], 1);
}

// Apart, the update waits for gw alone: the copy stays.
TEST_F(RemovedPerDeviceTest, SeparateAllReducesKeepTheCopy) {
  std::vector<uint8_t> removed;
  RemovedPerDevice(program_.module, {copy_}, Groups({{0}, {1}}), collectives_, removed);
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0], 0);
}

}  // namespace
}  // namespace memplan::predictor
