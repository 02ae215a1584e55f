// `memplan shard` as a user runs it: seed 001's acceptance case, one
// sharding given in every notation, device orders, uneven shapes, tuples,
// JSON, -o, determinism, and bad input (exit 2, located errors, no file).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "llvm/Support/JSON.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

using test::CommandResult;

CommandResult Shard(std::vector<std::string> args) {
  args.insert(args.begin(), {MEMPLAN_BINARY, "shard"});
  return test::RunCommand(args, MEMPLAN_SOURCE_DIR);
}

std::string Describe(const CommandResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout: " + r.out + "\nstderr: " + r.err;
}

// The picture of X in seed 001 (jax.debug.visualize_array_sharding on four
// GPUs, f32[20,16] with PartitionSpec('x', None)).
constexpr const char* kSeed001Picture =
    "┌──────────────────┐\n"
    "│      GPU 0       │\n"
    "├──────────────────┤\n"
    "│      GPU 1       │\n"
    "├──────────────────┤\n"
    "│      GPU 2       │\n"
    "├──────────────────┤\n"
    "│      GPU 3       │\n"
    "└──────────────────┘\n";

TEST(ShardCli, Seed001) {
  const CommandResult r =
      Shard({"--mesh", "x=4,y=1", "--spec", "PartitionSpec('x', None)", "--shape", "f32[20,16]"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_NE(r.out.find("HloSharding  {devices=[4,1]<=[4]}\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(kSeed001Picture), std::string::npos) << r.out;
  size_t shards = 0;
  for (size_t at = r.out.find("f32[5,16]"); at != std::string::npos; at = r.out.find("f32[5,16]", at + 1)) ++shards;
  EXPECT_EQ(shards, 4u) << r.out;
}

llvm::json::Value Json(const CommandResult& r) {
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(r.out);
  if (!json) {
    ADD_FAILURE() << llvm::toString(json.takeError()) << "\n" << r.out;
    return llvm::json::Object{};
  }
  return std::move(*json);
}

// Each device's (id, shard shape, indices) from the JSON of one array.
std::vector<std::string> Devices(const llvm::json::Value& json) {
  std::vector<std::string> out;
  const llvm::json::Array* layouts = json.getAsObject()->getArray("layouts");
  if (layouts == nullptr || layouts->empty()) return out;
  for (const llvm::json::Value& d : *(*layouts)[0].getAsObject()->getArray("devices")) {
    const llvm::json::Object& o = *d.getAsObject();
    std::string row = std::to_string(*o.getInteger("device")) + " " + o.getString("shard_shape")->str() + " ";
    llvm::raw_string_ostream os(row);
    os << llvm::json::Value(llvm::json::Array(*o.getArray("indices")));
    out.push_back(os.str());
  }
  return out;
}

TEST(ShardCli, OneShardingInEveryNotationGivesTheSameDevices) {
  const std::vector<std::vector<std::string>> notations = {
      {"--mesh", "x=4,y=2", "--spec", "P('x', 'y')"},
      {"--spec", "NamedSharding(mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto)), spec=P('x', 'y'), "
                 "memory_kind=device)"},
      {"--sharding", "{devices=[4,2]<=[8]}"},
      {"--sharding", "{mesh['x'=4,'y'=2], [{'x'}, {'y'}]}"},
      {"--opsharding", "b'\\x08\\x03\\x1a\\x02\\x04\\x02J\\x01\\x08R\\x01\\x00'"},
      {"--placements", "[Shard(0), Shard(1)]", "--mesh", "x=4,y=2"},
  };
  std::vector<std::string> first;
  for (std::vector<std::string> args : notations) {
    args.insert(args.end(), {"--shape", "bf16[8,6]", "--format=json"});
    const CommandResult r = Shard(args);
    ASSERT_EQ(r.exit_code, 0) << Describe(r);
    const std::vector<std::string> devices = Devices(Json(r));
    ASSERT_EQ(devices.size(), 8u) << r.out;
    if (first.empty()) first = devices;
    EXPECT_EQ(devices, first) << args[1];
  }
  EXPECT_EQ(first[7], "7 bf16[2,3] [[[6,8]],[[3,6]]]");
}

TEST(ShardCli, DeviceOrderMovesTheShards) {
  const CommandResult r = Shard({"--mesh", "x=4", "--spec", "P('x')", "--devices", "0,2,1,3", "--shape", "f32[8]",
                                 "--format=json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const llvm::json::Value json = Json(r);
  EXPECT_EQ(Devices(json), (std::vector<std::string>{"0 f32[2] [[[0,2]]]", "2 f32[2] [[[2,4]]]",
                                                     "1 f32[2] [[[4,6]]]", "3 f32[2] [[[6,8]]]"}));
  // JAX's HloSharding is over mesh positions; the order is the mesh's.
  EXPECT_EQ(json.getAsObject()->getString("hlo_sharding")->str(), "{devices=[4]<=[4]}");
}

TEST(ShardCli, DeviceOrderInXlasIotaForm) {
  // <=[4,2]T(1,0) is 0,2,4,6,1,3,5,7: the mesh's second row starts at device 1.
  const CommandResult r = Shard({"--mesh", "x=2,y=4", "--spec", "P('x', 'y')", "--devices", "<=[4,2]T(1,0)",
                                 "--shape", "f32[4,8]", "--format=json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const llvm::json::Value json = Json(r);
  const std::vector<std::string> devices = Devices(json);
  ASSERT_EQ(devices.size(), 8u);
  EXPECT_EQ(devices[4], "1 f32[2,2] [[[2,4]],[[0,2]]]");
  const llvm::json::Array& ids = *json.getAsObject()->getObject("mesh")->getArray("device_ids");
  EXPECT_EQ(*ids[1].getAsInteger(), 2);
}

TEST(ShardCli, MemoryKindIsShown) {
  const CommandResult r = Shard({"--spec",
                                 "NamedSharding(mesh=Mesh('x': 4, axis_types=(Explicit,)), spec=P('x',), "
                                 "memory_kind=pinned_host)",
                                 "--shape", "f32[8]", "--format=json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(Json(r).getAsObject()->getString("memory_kind")->str(), "pinned_host");
}

TEST(ShardCli, UnevenShapesXlaPadsDTensorDoesNot) {
  const CommandResult xla = Shard({"--sharding", "{devices=[4]<=[4]}", "--shape", "f32[10]", "--format=json"});
  ASSERT_EQ(xla.exit_code, 0) << Describe(xla);
  const llvm::json::Value xj = Json(xla);
  EXPECT_EQ(Devices(xj).back(), "3 f32[3] [[[9,10]]]");
  const llvm::json::Object& xl = *(*xj.getAsObject()->getArray("layouts"))[0].getAsObject();
  EXPECT_EQ(*xl.getInteger("total_bytes"), 48);    // 4 x ceil(10/4) x 4 B
  EXPECT_EQ(*xl.getInteger("padding_bytes"), 8);   // 2 padded elements on the last device
  const CommandResult torch =
      Shard({"--placements", "[Shard(0)]", "--mesh", "x=4", "--shape", "f32[10]", "--format=json"});
  ASSERT_EQ(torch.exit_code, 0) << Describe(torch);
  EXPECT_EQ(Devices(Json(torch)).back(), "3 f32[1] [[[9,10]]]");
  const CommandResult empty = Shard({"--placements", "[Shard(0)]", "--mesh", "x=4", "--shape", "f32[2]"});
  ASSERT_EQ(empty.exit_code, 0) << Describe(empty);
  EXPECT_NE(empty.out.find("f32[0]"), std::string::npos) << empty.out;
}

TEST(ShardCli, TupleShardingsLayOutEachElement) {
  const CommandResult r = Shard({"--sharding", "{{replicated}, {devices=[2]0,1}}", "--shape", "(f32[4], s8[6])",
                                 "--format=json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const llvm::json::Value json = Json(r);
  const llvm::json::Array& layouts = *json.getAsObject()->getArray("layouts");
  ASSERT_EQ(layouts.size(), 2u);
  EXPECT_EQ(layouts[0].getAsObject()->getString("form")->str(), "replicated");
  EXPECT_EQ(*layouts[1].getAsObject()->getInteger("max_bytes"), 3);
}

TEST(ShardCli, NonCanonicalTextIsShownAsWritten) {
  const CommandResult r = Shard({"--sharding", "{devices=[2,1,2]3,2,1,0 last_tile_dim_replicate}", "--shape", "f32[4,4]"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("HloSharding  {devices=[2,1,2]2,3,0,1 last_tile_dim_replicate}\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("as written   {devices=[2,1,2]3,2,1,0 last_tile_dim_replicate}"), std::string::npos);
}

TEST(ShardCli, OutputFileIsWrittenAtomicallyAndDeterministically) {
  test::TempDir dir;
  const std::vector<std::string> args = {"--mesh", "a=2,b=2,c=2", "--spec", "P(('a', 'c'), 'b')", "--shape",
                                         "f32[12,5]", "--format=json"};
  std::vector<std::string> with_o = args;
  with_o.insert(with_o.end(), {"-o", dir.File("out.json")});
  const CommandResult r = Shard(with_o);
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(r.out.empty());
  const CommandResult again = Shard(args);
  EXPECT_EQ(test::ReadFileOrDie(dir.File("out.json")), again.out);
  EXPECT_EQ(Shard(args).out, again.out);
  // A failing run leaves no file.
  std::vector<std::string> bad = {"--mesh", "a=2", "--spec", "P('q')", "--shape", "f32[4]", "-o", dir.File("bad.txt")};
  EXPECT_EQ(Shard(bad).exit_code, 2);
  EXPECT_FALSE(test::FileExists(dir.File("bad.txt")));
}

TEST(ShardCli, BadInputExitsTwoWithALocatedError) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--mesh", "x=4,y=1", "--spec", "PartitionSpec('z', None)", "--shape", "f32[20,16]"},
       "memplan shard: --spec:1:15: error: axis 'z' is not in the mesh (x=4,y=1); expected one of its axes"},
      {{"--mesh", "x=4,y=1", "--spec", "P('x', 'x')", "--shape", "f32[20,16]"},
       "memplan shard: --spec:1:8: error: axis 'x' is used twice"},
      {{"--mesh", "x=4,y=1", "--spec", "P('x', None, None)", "--shape", "f32[20,16]"},
       "memplan shard: --spec:1:18: error: the spec has 3 entries but the array has rank 2"},
      {{"--mesh", "x=4,y=1", "--spec", "P('x')", "--devices", "0,1,2", "--shape", "f32[20,16]"},
       "memplan shard: --devices:1:1: error: expected 4 device ids for the mesh x=4,y=1, found 3"},
      {{"--mesh", "x=4", "--spec", "P('x')", "--devices", "0,1,1,2", "--shape", "f32[8]"},
       "memplan shard: --devices:1:1: error: device 1 appears twice in the mesh"},
      {{"--sharding", "{devices=[2,2]<=[4]}", "--devices", "0,1", "--shape", "f32[4,4]"},
       "memplan shard: --devices:1:1: error: the sharding {devices=[2,2]<=[4]} uses 4 devices but 2 were given"},
      {{"--sharding", "{devices=[2,2]<=[4]}", "--shape", "f32[4]"},
       "memplan shard: --sharding:1:1: error: the sharding {devices=[2,2]<=[4]} tiles 2 dimensions but the shape f32[4] has 1"},
      {{"--sharding", "{devices=[2,2]0,1,2}", "--shape", "f32[4,4]"},
       "memplan shard: --sharding:1:20: error: expected 4 devices for tile dimensions, found 3"},
      {{"--opsharding", "b'\\x08\\x07'", "--shape", "f32[4]"},
       "memplan shard: --opsharding:1:1: error: unknown OpSharding type 7"},
      {{"--placements", "[Shard(0), Replicate()]", "--mesh", "x=4", "--shape", "f32[8]"},
       "memplan shard: --placements:1:1: error: expected one placement per mesh dimension"},
      {{"--placements", "[Shard(2)]", "--mesh", "x=4", "--shape", "f32[8]"},
       "memplan shard: --placements:1:2: error: Shard(dim=2) shards dimension 2 but the array has rank 1"},
      {{"--spec", "P('x')", "--shape", "f32[8]"},
       "memplan shard: --spec:1:1: error: expected --mesh for a PartitionSpec"},
      {{"--mesh", "x=4", "--spec", "P('x')", "--shape", "f32[8"},
       "memplan shard: --shape:1:6: error: expected a shape such as f32[20,16]"},
      {{"--shape", "f32[8]"}, "memplan shard: expected exactly one of --spec, --sharding, --opsharding, --placements"},
      {{"--sharding", "{replicated}", "--spec", "P()", "--shape", "f32[8]"},
       "memplan shard: expected exactly one of --spec, --sharding, --opsharding, --placements"},
  };
  for (const auto& [args, expected] : cases) {
    const CommandResult r = Shard(args);
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_TRUE(r.err.starts_with(expected)) << "expected: " << expected << "\n" << r.err;
  }
}

}  // namespace
}  // namespace memplan
