#include "cli/commands.h"
#include "cli/subcommand.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {
namespace {

namespace cl = llvm::cl;

class ShardSubcommand : public Subcommand {
 public:
  bool Selected() const override { return static_cast<bool>(command_); }

  int Run() override {
    ShardFlags flags;
    flags.shape = shape_;
    flags.mesh = mesh_;
    flags.spec = spec_;
    flags.sharding = sharding_;
    flags.opsharding = opsharding_;
    flags.placements = placements_;
    flags.devices = devices_;
    flags.device_label = device_label_;
    flags.format = format_;
    flags.output = output_;
    return RunShard(flags);
  }

 private:
  cl::SubCommand command_{"shard",
                          "Show one array under a mesh and a sharding: its HloSharding, a device "
                          "picture and every device's shard shape, bytes and index ranges"};
  cl::opt<std::string> shape_{"shape", cl::sub(command_), cl::value_desc("shape"),
                              cl::desc("The global array, as XLA prints it: f32[20,16]")};
  cl::opt<std::string> mesh_{"mesh", cl::sub(command_), cl::value_desc("mesh"),
                             cl::desc("The device mesh: x=4,y=1, or a JAX Mesh(...) or PyTorch "
                                      "DeviceMesh(...) repr")};
  cl::opt<std::string> spec_{"spec", cl::sub(command_), cl::value_desc("spec"),
                             cl::desc("A JAX PartitionSpec('x', None) / P(...) on --mesh, or a "
                                      "NamedSharding(...) / ShapeDtypeStruct(...) repr")};
  cl::opt<std::string> sharding_{"sharding", cl::sub(command_), cl::value_desc("hlo-sharding"),
                                 cl::desc("An XLA HloSharding: '{devices=[4,1]<=[4]}'")};
  cl::opt<std::string> opsharding_{"opsharding", cl::sub(command_), cl::value_desc("bytes"),
                                   cl::desc("Serialized OpSharding bytes: a Python literal "
                                            "b'\\x08\\x03...' or hex digits")};
  cl::opt<std::string> placements_{"placements", cl::sub(command_), cl::value_desc("placements"),
                                   cl::desc("PyTorch DTensor placements on --mesh: "
                                            "'[Shard(0), Replicate()]'")};
  cl::opt<std::string> devices_{"devices", cl::sub(command_), cl::value_desc("ids"),
                                cl::desc("The mesh's device ids in mesh order (default 0,1,2,...): "
                                         "0,2,1,3")};
  cl::opt<std::string> device_label_{"device-label", cl::sub(command_), cl::init("GPU"),
                                     cl::value_desc("label"),
                                     cl::desc("Device kind shown in the picture (default GPU)")};
  cl::opt<ShardFormat> format_{
      "format", cl::sub(command_), cl::init(ShardFormat::kText), cl::desc("Output format"),
      cl::values(clEnumValN(ShardFormat::kText, "text", "HloSharding, picture and table"),
                 clEnumValN(ShardFormat::kJson, "json", "JSON (docs/shardings.md)"))};
  cl::opt<std::string> output_{"o", cl::sub(command_), cl::init("-"), cl::value_desc("file"),
                               cl::desc("Write the report to <file> (atomically)")};
};

}  // namespace

std::unique_ptr<Subcommand> MakeShardSubcommand() { return std::make_unique<ShardSubcommand>(); }

}  // namespace memplan::cli
