// Collective costs (simulator/collective_cost.h) against values computed by
// hand from the h100 preset (NVLink 450GB/s and 1.9us per step, network
// 400Gb/s = 50GB/s and 4us per step), device groups of meshes
// (simulator/mesh_groups.h), and step time under each overlap model
// (simulator/step_time.h).
#include <vector>

#include "gtest/gtest.h"
#include "simulator/collective_cost.h"
#include "simulator/hardware_loader.h"
#include "simulator/mesh_groups.h"
#include "simulator/step_time.h"

namespace memplan::simulator {
namespace {

using ir::CollectiveKind;

constexpr double kGiB = 1073741824.0;

Hardware H100() {
  absl::StatusOr<Hardware> hw = LoadHardware("h100");
  EXPECT_TRUE(hw.ok()) << hw.status();
  return hw.value_or(Hardware());
}

GroupPlacement Place(int64_t ranks, int64_t nodes, int64_t per_node, bool uniform = true) {
  return {ranks, nodes, per_node, uniform};
}

TEST(CollectiveCostTest, AllReduceInOneNode) {
  // 14 steps of 1.9us; 2*7/8 GiB = 1879048192 bytes at 450GB/s.
  const CollectiveCost c = CostOfCollective(H100(), CollectiveKind::kAllReduce, kGiB,
                                            Place(8, 1, 8));
  EXPECT_EQ(c.route, Route::kNvlink);
  EXPECT_DOUBLE_EQ(c.alpha_seconds, 26.6e-6);
  EXPECT_DOUBLE_EQ(c.bandwidth_seconds, 1879048192.0 / 450e9);
  EXPECT_DOUBLE_EQ(c.seconds, 26.6e-6 + 0.0041756626488888889);
  EXPECT_EQ(c.nvlink_bytes, 1879048192.0);
  EXPECT_EQ(c.network_bytes, 0.0);
}

TEST(CollectiveCostTest, AllGatherReduceScatterAllToAllInOneNode) {
  // 7 steps; 7/8 GiB = 939524096 bytes.
  for (CollectiveKind kind :
       {CollectiveKind::kAllGather, CollectiveKind::kReduceScatter, CollectiveKind::kAllToAll}) {
    const CollectiveCost c = CostOfCollective(H100(), kind, kGiB, Place(8, 1, 8));
    EXPECT_DOUBLE_EQ(c.seconds, 13.3e-6 + 939524096.0 / 450e9) << ir::CollectiveName(kind);
  }
}

TEST(CollectiveCostTest, AllReduceOverTwoNodesIsHierarchical) {
  // Reduce-scatter in the node (7 steps, 7/8 GiB on NVLink), all-reduce of
  // 1/8 GiB between the 2 nodes (2 steps of 4us, 2*1/2*128MiB on the NIC),
  // all-gather in the node (as the reduce-scatter). Pipelined: the alphas
  // add, the slowest bandwidth term counts: 134217728 / 50e9 > 939524096 / 450e9.
  const CollectiveCost c = CostOfCollective(H100(), CollectiveKind::kAllReduce, kGiB,
                                            Place(16, 2, 8));
  EXPECT_EQ(c.route, Route::kHierarchical);
  ASSERT_EQ(c.stages.size(), 3u);
  EXPECT_EQ(c.stages[1].link, Link::kNetwork);
  EXPECT_EQ(c.stages[1].ranks, 2);
  EXPECT_DOUBLE_EQ(c.alpha_seconds, 7 * 1.9e-6 + 2 * 4e-6 + 7 * 1.9e-6);
  EXPECT_DOUBLE_EQ(c.bandwidth_seconds, 134217728.0 / 50e9);
  EXPECT_DOUBLE_EQ(c.seconds, 34.6e-6 + 2.68435456e-3);
  EXPECT_EQ(c.nvlink_bytes, 2 * 939524096.0);
  EXPECT_EQ(c.network_bytes, 134217728.0);
}

TEST(CollectiveCostTest, AllGatherAndReduceScatterOverTwoNodes) {
  // Network stage on 1/8 GiB among 2 nodes: 1 step, 1/2 * 128MiB.
  const CollectiveCost ag = CostOfCollective(H100(), CollectiveKind::kAllGather, kGiB,
                                             Place(16, 2, 8));
  EXPECT_DOUBLE_EQ(ag.alpha_seconds, 4e-6 + 7 * 1.9e-6);
  EXPECT_DOUBLE_EQ(ag.bandwidth_seconds, std::max(67108864.0 / 50e9, 939524096.0 / 450e9));
  const CollectiveCost rs = CostOfCollective(H100(), CollectiveKind::kReduceScatter, kGiB,
                                             Place(16, 2, 8));
  EXPECT_DOUBLE_EQ(rs.seconds, ag.seconds);
}

TEST(CollectiveCostTest, OneGpuPerNodeRunsFlatOnTheNetwork) {
  // 30 steps of 4us; 2*15/16 GiB at 50GB/s.
  const CollectiveCost c = CostOfCollective(H100(), CollectiveKind::kAllReduce, kGiB,
                                            Place(16, 16, 1));
  EXPECT_EQ(c.route, Route::kNetwork);
  EXPECT_DOUBLE_EQ(c.seconds, 120e-6 + 2013265920.0 / 50e9);
}

TEST(CollectiveCostTest, UnevenSpreadRunsFlatOnTheNetwork) {
  const CollectiveCost c = CostOfCollective(H100(), CollectiveKind::kAllReduce, kGiB,
                                            Place(12, 2, 8, /*uniform=*/false));
  EXPECT_EQ(c.route, Route::kNetwork);
  EXPECT_DOUBLE_EQ(c.seconds, 22 * 4e-6 + 2.0 * 11 / 12 * kGiB / 50e9);
}

TEST(CollectiveCostTest, AllToAllOverTwoNodesIsSetByTheNetworkPart) {
  // Each GPU sends 1/16 GiB to each of 15 peers: 7 in its node, 8 not.
  const CollectiveCost c = CostOfCollective(H100(), CollectiveKind::kAllToAll, kGiB,
                                            Place(16, 2, 8));
  EXPECT_EQ(c.route, Route::kHierarchical);
  EXPECT_DOUBLE_EQ(c.nvlink_bytes, 7 * kGiB / 16);
  EXPECT_DOUBLE_EQ(c.network_bytes, 8 * kGiB / 16);
  EXPECT_DOUBLE_EQ(c.seconds, 8 * 4e-6 + 536870912.0 / 50e9);
  EXPECT_DOUBLE_EQ(c.alpha_seconds, 32e-6);
}

TEST(CollectiveCostTest, SendRecvAndSingleRank) {
  const Hardware hw = H100();
  const std::vector<int64_t> across = {3, 11};
  const CollectiveCost remote = CostOfCollective(hw, CollectiveKind::kSendRecv, kGiB,
                                                 PlaceGroup(across, 8));
  EXPECT_EQ(remote.route, Route::kNetwork);
  EXPECT_DOUBLE_EQ(remote.seconds, 4e-6 + kGiB / 50e9);
  const std::vector<int64_t> within = {3, 4};
  EXPECT_DOUBLE_EQ(
      CostOfCollective(hw, CollectiveKind::kSendRecv, kGiB, PlaceGroup(within, 8)).seconds,
      1.9e-6 + kGiB / 450e9);
  const CollectiveCost none = CostOfCollective(hw, CollectiveKind::kAllReduce, kGiB,
                                               Place(1, 1, 1));
  EXPECT_EQ(none.route, Route::kNone);
  EXPECT_EQ(none.seconds, 0.0);
}

TEST(CollectiveCostTest, CalibratedParametersReplaceTheLinks) {
  Hardware hw = H100();
  hw.collectives[{Link::kNvlink, CollectiveKind::kAllReduce}] = {3e-6, 360e9};
  const CollectiveCost c = CostOfCollective(hw, CollectiveKind::kAllReduce, kGiB, Place(8, 1, 8));
  EXPECT_DOUBLE_EQ(c.seconds, 14 * 3e-6 + 1879048192.0 / 360e9);
  // Other collectives keep the link's figures.
  EXPECT_DOUBLE_EQ(CostOfCollective(hw, CollectiveKind::kAllGather, kGiB, Place(8, 1, 8)).seconds,
                   13.3e-6 + 939524096.0 / 450e9);
}

TEST(PlaceGroupTest, CountsNodes) {
  const std::vector<int64_t> devices = {0, 1, 8, 9, 16, 17};
  const GroupPlacement p = PlaceGroup(devices, 8);
  EXPECT_EQ(p.ranks, 6);
  EXPECT_EQ(p.nodes, 3);
  EXPECT_EQ(p.ranks_per_node, 2);
  EXPECT_TRUE(p.uniform);
  const std::vector<int64_t> uneven = {0, 1, 2, 8};
  EXPECT_FALSE(PlaceGroup(uneven, 8).uniform);
}

// ---------------------------------------------------------------------------
// Mesh groups.

MeshGroups Groups(std::vector<int64_t> shape, std::vector<int> axes, int64_t gpus_per_node) {
  absl::StatusOr<MeshGroups> g = CollectiveGroups(shape, axes, gpus_per_node);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.value_or(MeshGroups());
}

TEST(MeshGroupsTest, MinorAxisStaysInNodeMajorAxisCrosses) {
  // 2 x 4 mesh, 4 GPUs per node: the minor axis is a node, the major axis
  // pairs device i with i + 4 on the other node.
  const MeshGroups minor = Groups({2, 4}, {1}, 4);
  EXPECT_EQ(minor.groups, (std::vector<std::vector<int64_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_FALSE(minor.crosses_nodes);
  EXPECT_EQ(minor.placement.nodes, 1);

  const MeshGroups major = Groups({2, 4}, {0}, 4);
  EXPECT_EQ(major.groups,
            (std::vector<std::vector<int64_t>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_TRUE(major.crosses_nodes);
  EXPECT_EQ(major.placement.nodes, 2);
  EXPECT_EQ(major.placement.ranks_per_node, 1);
  EXPECT_TRUE(major.same_placement);
}

TEST(MeshGroupsTest, AllAxesAndAxisOrder) {
  const MeshGroups all = Groups({4, 8}, {0, 1}, 8);
  ASSERT_EQ(all.groups.size(), 1u);
  EXPECT_EQ(all.group_size, 32);
  EXPECT_EQ(all.placement.nodes, 4);
  EXPECT_EQ(all.placement.ranks_per_node, 8);
  // Devices inside a group follow the axes in the order given.
  const MeshGroups ordered = Groups({2, 2, 2}, {2, 0}, 8);
  EXPECT_EQ(ordered.groups,
            (std::vector<std::vector<int64_t>>{{0, 4, 1, 5}, {2, 6, 3, 7}}));
  const MeshGroups none = Groups({2, 2}, {}, 8);
  EXPECT_EQ(none.groups.size(), 4u);
  EXPECT_EQ(none.group_size, 1);
}

TEST(MeshGroupsTest, MiddleAxisOfThreeOnTwoNodes) {
  // dp=2 (major) x fsdp=4 x tp=2 (minor) on 8-GPU nodes: fsdp groups are
  // {0,2,4,6}, {1,3,5,7} in node 0 and the same plus 8 in node 1.
  const MeshGroups fsdp = Groups({2, 4, 2}, {1}, 8);
  EXPECT_EQ(fsdp.groups, (std::vector<std::vector<int64_t>>{
                             {0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}}));
  EXPECT_FALSE(fsdp.crosses_nodes);
  const MeshGroups dp = Groups({2, 4, 2}, {0}, 8);
  EXPECT_TRUE(dp.crosses_nodes);
}

TEST(MeshGroupsTest, RefusesBadAxes) {
  const std::vector<int64_t> shape = {2, 4};
  EXPECT_FALSE(CollectiveGroups(shape, std::vector<int>{2}, 8).ok());
  EXPECT_FALSE(CollectiveGroups(shape, std::vector<int>{0, 0}, 8).ok());
  const std::vector<int64_t> zero = {0, 4};
  EXPECT_FALSE(CollectiveGroups(zero, std::vector<int>{0}, 8).ok());
}

// ---------------------------------------------------------------------------
// Step time.

TEST(StepTimeTest, OverlapModels) {
  const std::vector<TimedCollective> collectives = {{2.0, 1.0}, {3.0, 0.0}, {1.0, 0.5}};
  const StepTime none = CombineStepTime(10.0, collectives, OverlapModel::kNone);
  EXPECT_DOUBLE_EQ(none.collective_seconds, 6.0);
  EXPECT_DOUBLE_EQ(none.step_seconds, 16.0);
  const StepTime full = CombineStepTime(10.0, collectives, OverlapModel::kFull);
  EXPECT_DOUBLE_EQ(full.exposed_seconds, 0.0);
  EXPECT_DOUBLE_EQ(full.step_seconds, 10.0);
  const StepTime full_short = CombineStepTime(4.0, collectives, OverlapModel::kFull);
  EXPECT_DOUBLE_EQ(full_short.step_seconds, 6.0);  // max(compute, collectives)
  // Per collective: 2*1 + 3*0 + 1*0.5 = 2.5 can hide.
  const StepTime per = CombineStepTime(10.0, collectives, OverlapModel::kPerCollective);
  EXPECT_DOUBLE_EQ(per.exposed_seconds, 3.5);
  EXPECT_DOUBLE_EQ(per.step_seconds, 13.5);
  const StepTime per_short = CombineStepTime(1.0, collectives, OverlapModel::kPerCollective);
  EXPECT_DOUBLE_EQ(per_short.step_seconds, 6.0);  // hides only 1.0
  EXPECT_EQ(OverlapModelFromName("per-collective"), OverlapModel::kPerCollective);
  EXPECT_EQ(OverlapModelFromName("partial"), std::nullopt);
}

}  // namespace
}  // namespace memplan::simulator
