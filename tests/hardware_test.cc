// Hardware as data (simulator/hardware*.h, units.h, presets.h): quantities,
// the presets against their datasheets, files that extend presets, and
// located errors for bad files.
#include <cmath>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "ir/strings.h"
#include "simulator/hardware.h"
#include "simulator/hardware_loader.h"
#include "simulator/hardware_yaml.h"
#include "simulator/presets.h"
#include "simulator/units.h"
#include "tests/test_util.h"

namespace memplan::simulator {
namespace {

double Parse(std::string_view text, Quantity kind) {
  absl::StatusOr<double> v = ParseQuantity(text, kind);
  EXPECT_TRUE(v.ok()) << text << ": " << v.status();
  return v.value_or(-1);
}

TEST(UnitsTest, ParsesEachKind) {
  EXPECT_EQ(Parse("80GiB", Quantity::kBytes), 85899345920.0);
  EXPECT_EQ(Parse("141GB", Quantity::kBytes), 141e9);
  EXPECT_EQ(Parse("1.5 KiB", Quantity::kBytes), 1536.0);
  EXPECT_EQ(Parse("12345", Quantity::kBytes), 12345.0);
  EXPECT_EQ(Parse("450GB/s", Quantity::kBandwidth), 450e9);
  EXPECT_EQ(Parse("3.35TB/s", Quantity::kBandwidth), 3.35e12);
  EXPECT_EQ(Parse("400Gb/s", Quantity::kBandwidth), 50e9);  // bits
  EXPECT_EQ(Parse("200 Gbit/s", Quantity::kBandwidth), 25e9);
  EXPECT_DOUBLE_EQ(Parse("1.9us", Quantity::kDuration), 1.9e-6);
  EXPECT_DOUBLE_EQ(Parse("4\xC2\xB5s", Quantity::kDuration), 4e-6);
  EXPECT_DOUBLE_EQ(Parse("250ns", Quantity::kDuration), 250e-9);
  EXPECT_EQ(Parse("989.5TFLOP/s", Quantity::kFlopRate), 989.5e12);
  EXPECT_EQ(Parse("1979TOPS", Quantity::kFlopRate), 1979e12);
  EXPECT_EQ(Parse("2.25PFLOP/s", Quantity::kFlopRate), 2.25e15);
  EXPECT_EQ(Parse("6.7e13FLOP/s", Quantity::kFlopRate), 6.7e13);
  EXPECT_EQ(Parse("8", Quantity::kCount), 8.0);
}

TEST(UnitsTest, RefusesWhatItCannotRead) {
  for (auto [text, kind] : std::initializer_list<std::pair<std::string_view, Quantity>>{
           {"450", Quantity::kBandwidth},     // no unit
           {"450GB", Quantity::kBandwidth},   // bytes, not a rate
           {"1.9", Quantity::kDuration},
           {"1.5B", Quantity::kBytes},        // not whole
           {"-3GB/s", Quantity::kBandwidth},
           {"0GB/s", Quantity::kBandwidth},
           {"2.5", Quantity::kCount},
           {"0", Quantity::kCount},
           {"1e999GB/s", Quantity::kBandwidth},
           {"fast", Quantity::kFlopRate}}) {
    absl::StatusOr<double> v = ParseQuantity(text, kind);
    EXPECT_FALSE(v.ok()) << text;
    if (!v.ok()) {
      EXPECT_TRUE(absl::StartsWith(v.status().message(), "expected ")) << v.status();
    }
  }
}

TEST(UnitsTest, FormatsCanonicallyAndReadsBack) {
  EXPECT_EQ(FormatQuantity(450e9, Quantity::kBandwidth), "450GB/s");
  EXPECT_EQ(FormatQuantity(50e9, Quantity::kBandwidth), "50GB/s");
  EXPECT_EQ(FormatQuantity(3.35e12, Quantity::kBandwidth), "3.35TB/s");
  EXPECT_EQ(FormatQuantity(85899345920.0, Quantity::kBytes), "80GiB");
  EXPECT_EQ(FormatQuantity(141e9, Quantity::kBytes), "141GB");
  EXPECT_EQ(FormatQuantity(2039e9, Quantity::kBandwidth), "2039GB/s");
  EXPECT_EQ(FormatQuantity(12345, Quantity::kBytes), "12345");
  EXPECT_EQ(FormatQuantity(Parse("1.9us", Quantity::kDuration), Quantity::kDuration), "1.9us");
  EXPECT_EQ(FormatQuantity(989.5e12, Quantity::kFlopRate), "989.5TFLOP/s");
  EXPECT_EQ(FormatQuantityRounded(229.7346e9, Quantity::kBandwidth, 4), "229.7GB/s");
  for (double v : {1.0, 3.3e-7, 0.123456789, 7.7e12, 1979e12}) {
    for (Quantity k : {Quantity::kBandwidth, Quantity::kDuration, Quantity::kFlopRate}) {
      if (k == Quantity::kDuration && v > 1) continue;
      EXPECT_DOUBLE_EQ(Parse(FormatQuantity(v, k), k), v) << FormatQuantity(v, k);
    }
  }
}

// ---------------------------------------------------------------------------
// Presets: the numbers each datasheet gives (see the comments in
// simulator/presets/*.yaml for the sources).

Hardware LoadPreset(std::string_view name) {
  absl::StatusOr<Hardware> hw = LoadHardware(name);
  EXPECT_TRUE(hw.ok()) << hw.status();
  return hw.value_or(Hardware());
}

double Peak(const Hardware& hw, Precision p) { return hw.peak_flops[static_cast<int>(p)]; }

TEST(PresetsTest, H100SxmDatasheet) {
  const Hardware hw = LoadPreset("h100");
  EXPECT_EQ(hw.name, "h100");
  EXPECT_EQ(hw.hbm_bytes, int64_t{80} << 30);
  EXPECT_EQ(hw.hbm_bandwidth, 3.35e12);
  EXPECT_DOUBLE_EQ(Peak(hw, Precision::kF64), 67e12);
  EXPECT_DOUBLE_EQ(Peak(hw, Precision::kF32), 67e12);
  EXPECT_DOUBLE_EQ(Peak(hw, Precision::kTf32), 989e12 / 2);
  EXPECT_DOUBLE_EQ(Peak(hw, Precision::kBf16), 1979e12 / 2);
  EXPECT_DOUBLE_EQ(Peak(hw, Precision::kF16), 1979e12 / 2);
  EXPECT_DOUBLE_EQ(Peak(hw, Precision::kFp8), 3958e12 / 2);
  EXPECT_DOUBLE_EQ(Peak(hw, Precision::kInt8), 3958e12 / 2);
  EXPECT_EQ(hw.gpus_per_node, 8);
  EXPECT_EQ(hw.nvlink.bandwidth, 900e9 / 2);
  EXPECT_EQ(hw.network.bandwidth, 400e9 / 8);
  EXPECT_DOUBLE_EQ(hw.nvlink.latency, 1.9e-6);
  EXPECT_DOUBLE_EQ(hw.network.latency, 4e-6);
  EXPECT_EQ(hw.efficiency.matmul, 0.7);
  EXPECT_EQ(hw.efficiency.vector, 0.5);
  EXPECT_EQ(hw.efficiency.memory, 0.8);
}

TEST(PresetsTest, H200A100B200Datasheets) {
  const Hardware h200 = LoadPreset("H200");  // case ignored
  EXPECT_EQ(h200.hbm_bytes, int64_t{141} << 30);
  EXPECT_EQ(h200.hbm_bandwidth, 4.8e12);
  EXPECT_DOUBLE_EQ(Peak(h200, Precision::kBf16), 1979e12 / 2);
  EXPECT_EQ(h200.nvlink.bandwidth, 450e9);

  const Hardware a100 = LoadPreset("a100");
  EXPECT_EQ(a100.hbm_bytes, int64_t{80} << 30);
  EXPECT_EQ(a100.hbm_bandwidth, 2039e9);
  EXPECT_DOUBLE_EQ(Peak(a100, Precision::kTf32), 156e12);
  EXPECT_DOUBLE_EQ(Peak(a100, Precision::kBf16), 312e12);
  EXPECT_DOUBLE_EQ(Peak(a100, Precision::kInt8), 624e12);
  EXPECT_EQ(Peak(a100, Precision::kFp8), 0);  // A100 has none...
  EXPECT_EQ(a100.PeakFlops(Precision::kFp8), 312e12);  // ...and runs it as bf16
  EXPECT_EQ(a100.nvlink.bandwidth, 300e9);
  EXPECT_EQ(a100.network.bandwidth, 25e9);

  const Hardware b200 = LoadPreset("b200");
  EXPECT_EQ(b200.hbm_bytes, int64_t{180} << 30);
  EXPECT_EQ(b200.hbm_bandwidth, 7.7e12);
  EXPECT_DOUBLE_EQ(Peak(b200, Precision::kFp8), 9e15 / 2);
  EXPECT_DOUBLE_EQ(Peak(b200, Precision::kBf16), 4.5e15 / 2);
  EXPECT_DOUBLE_EQ(Peak(b200, Precision::kTf32), 2.2e15 / 2);
  EXPECT_DOUBLE_EQ(Peak(b200, Precision::kF32), 75e12);
  EXPECT_DOUBLE_EQ(Peak(b200, Precision::kF64), 37e12);
  EXPECT_EQ(b200.nvlink.bandwidth, 900e9);
}

TEST(PresetsTest, EmbeddedTextIsTheFileInTheTree) {
  ASSERT_EQ(BuiltinPresets().size(), 4u);
  for (const Preset& p : BuiltinPresets()) {
    EXPECT_EQ(p.yaml, test::ReadFileOrDie(test::SourcePath(
                          StrCat("simulator/presets/", p.name, ".yaml"))))
        << p.name;
  }
  EXPECT_EQ(PresetNames(), "a100, b200, h100, h200");
}

TEST(PresetsTest, DevicesAsNcclTestsPrintsThem) {
  EXPECT_EQ(PresetForDevice("NVIDIA H100 80GB HBM3"), "h100");
  EXPECT_EQ(PresetForDevice("NVIDIA H200"), "h200");
  EXPECT_EQ(PresetForDevice("NVIDIA A100-SXM4-80GB"), "a100");
  EXPECT_EQ(PresetForDevice("NVIDIA B200"), "b200");
  EXPECT_EQ(PresetForDevice("A100-SXM4-40GB"), std::nullopt);  // no 40GB preset
  EXPECT_EQ(PresetForDevice("NVIDIA H200 NVL"), std::nullopt);
  // As memplan bench-collectives prints it.
  EXPECT_EQ(PresetForDevice("NVIDIA H100 80GB HBM3 (device 0 of 8, 79.1 GiB)"), "h100");
}

TEST(HardwareYamlTest, CanonicalYamlReadsBackTheSameValues) {
  for (const Preset& p : BuiltinPresets()) {
    const Hardware hw = LoadPreset(p.name);
    const std::string yaml = HardwareToYaml(hw);
    absl::StatusOr<Hardware> back = LoadHardwareText(yaml, "back.yaml");
    ASSERT_TRUE(back.ok()) << back.status() << "\n" << yaml;
    EXPECT_EQ(back->name, hw.name);
    EXPECT_EQ(back->description, hw.description);
    EXPECT_EQ(back->device_names, hw.device_names);
    EXPECT_EQ(back->hbm_bytes, hw.hbm_bytes);
    EXPECT_EQ(back->hbm_bandwidth, hw.hbm_bandwidth);
    EXPECT_EQ(back->peak_flops, hw.peak_flops);
    EXPECT_EQ(back->gpus_per_node, hw.gpus_per_node);
    EXPECT_EQ(back->nvlink.bandwidth, hw.nvlink.bandwidth);
    EXPECT_DOUBLE_EQ(back->nvlink.latency, hw.nvlink.latency);
    EXPECT_EQ(back->network.bandwidth, hw.network.bandwidth);
    EXPECT_DOUBLE_EQ(back->network.latency, hw.network.latency);
    EXPECT_EQ(back->efficiency.matmul, hw.efficiency.matmul);
    EXPECT_EQ(back->efficiency.vector, hw.efficiency.vector);
    EXPECT_EQ(back->efficiency.memory, hw.efficiency.memory);
  }
}

TEST(HardwareYamlTest, NamesWithYamlSyntaxAndControlCharactersReadBack) {
  Hardware hw = LoadPreset("h100");
  for (std::string name : {std::string("a: b #c"), std::string("- dash"), std::string("x\ty"),
                           std::string("q\"uote\\"), std::string(" lead"), std::string("del\x7f"),
                           std::string("c1\xc2\x85 next-line"), std::string("[1, 2]")}) {
    hw.name = name;
    hw.description = name;
    hw.device_names = {name};
    const std::string yaml = HardwareToYaml(hw);
    absl::StatusOr<Hardware> back = LoadHardwareText(yaml, "back.yaml");
    ASSERT_TRUE(back.ok()) << back.status() << "\n" << yaml;
    EXPECT_EQ(back->name, name);
    EXPECT_EQ(back->description, name);
    EXPECT_EQ(back->device_names, hw.device_names);
  }
}

TEST(HardwareYamlTest, ExtendsAPresetAndChangesSomeFields) {
  absl::StatusOr<Hardware> hw = LoadHardwareText(
      "name: my-cluster\n"
      "extends: h100\n"
      "node: {gpus_per_node: 4}\n"
      "links:\n"
      "  network: {bandwidth: 200Gb/s}\n"
      "collectives:\n"
      "  nvlink:\n"
      "    all_reduce: {alpha: 2.5us, bandwidth: 360GB/s}\n",
      "mine.yaml");
  ASSERT_TRUE(hw.ok()) << hw.status();
  EXPECT_EQ(hw->name, "my-cluster");
  EXPECT_EQ(hw->hbm_bytes, int64_t{80} << 30);  // from h100
  EXPECT_EQ(hw->gpus_per_node, 4);
  EXPECT_EQ(hw->network.bandwidth, 25e9);
  EXPECT_DOUBLE_EQ(hw->network.latency, 4e-6);  // kept
  const AlphaBeta ar = hw->ParamsFor(Link::kNvlink, ir::CollectiveKind::kAllReduce);
  EXPECT_DOUBLE_EQ(ar.alpha, 2.5e-6);
  EXPECT_EQ(ar.bandwidth, 360e9);
  const AlphaBeta ag = hw->ParamsFor(Link::kNvlink, ir::CollectiveKind::kAllGather);
  EXPECT_EQ(ag.bandwidth, 450e9);  // not calibrated: the link's
}

TEST(HardwareYamlTest, ExtendsAFileRelativeToItself) {
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("base.yaml"), "extends: a100\nname: base\n"));
  ASSERT_TRUE(test::WriteFile(dir.File("top.yaml"), "extends: base.yaml\nname: top\n"));
  absl::StatusOr<Hardware> hw = LoadHardware(dir.File("top.yaml"));
  ASSERT_TRUE(hw.ok()) << hw.status();
  EXPECT_EQ(hw->name, "top");
  EXPECT_EQ(hw->nvlink.bandwidth, 300e9);

  ASSERT_TRUE(test::WriteFile(dir.File("loop.yaml"), "extends: loop.yaml\n"));
  absl::StatusOr<Hardware> loop = LoadHardware(dir.File("loop.yaml"));
  ASSERT_FALSE(loop.ok());
  EXPECT_TRUE(absl::StrContains(loop.status().message(), "loop.yaml:1:10: error: 'extends' nests "
                                                         "more than 8 files deep"))
      << loop.status();
}

void ExpectError(std::string_view yaml, std::string_view expected) {
  absl::StatusOr<Hardware> hw = LoadHardwareText(yaml, "hw.yaml");
  ASSERT_FALSE(hw.ok()) << yaml;
  EXPECT_TRUE(absl::StrContains(hw.status().message(), ToAbsl(expected)))
      << "got: " << hw.status().message() << "\nexpected: " << expected;
}

TEST(HardwareYamlErrorTest, EachErrorNamesItsPlace) {
  ExpectError("extends: h100\ndevice:\n  hbm_byte: 80GiB\n",
              "hw.yaml:3:3: error: unknown key 'hbm_byte' in device; expected one of hbm_bytes, "
              "hbm_bandwidth, peak_flops");
  ExpectError("extends: h100\nlinks:\n  nvlink: {bandwidth: 450}\n",
              "hw.yaml:3:23: error: expected a bandwidth such as 450GB/s");
  ExpectError("extends: h100\nname: a\nname: b\n", "hw.yaml:3:1: error: duplicate key 'name'");
  ExpectError("extends: h100\ndevice: [1, 2\n", "hw.yaml:2:10: error: expected a mapping (device)");
  ExpectError("extends: h100\nname: \"unclosed\n", "hw.yaml:");
  ExpectError("extends: h100\ndevice:\n  peak_flops: {fp4: 9PFLOP/s}\n",
              "hw.yaml:3:16: error: unknown key 'fp4' in device.peak_flops");
  ExpectError("extends: h100\ncollectives:\n  nvlink:\n    all_reduce: {alpha: 2us}\n",
              "hw.yaml:4:5: error: expected both alpha and bandwidth for all_reduce on nvlink");
  ExpectError("extends: h100\nefficiency: {matmul: 1.2}\n",
              "hw.yaml:2:22: error: expected a fraction of the peak in (0, 1], e.g. 0.7");
  ExpectError("extends: h100\ncollectives:\n  pcie: {}\n",
              "hw.yaml:3:3: error: unknown key 'pcie' in collectives");
  ExpectError("name: bare\n",
              "hw.yaml:1:1: error: incomplete hardware description: missing device.hbm_bytes, "
              "device.hbm_bandwidth, device.peak_flops.f32, node.gpus_per_node, "
              "links.nvlink.bandwidth, links.network.bandwidth");
  ExpectError("extends: h1000\n", "hw.yaml:1:10: error: in 'extends: h1000': unknown hardware "
                                  "'h1000': expected a hardware file or one of a100, b200, h100, "
                                  "h200");
  ExpectError("", "hw.yaml:1:1: error: expected a hardware description");
  // Fuzzing found this one: invalid UTF-8 leaves a document without a root.
  ExpectError("extends:\xe2\x97\xce\xcf" "0\n---\nname: b\n",
              "hw.yaml:1:9: error: expected UTF-8 text");
  ExpectError("- 1\n", "hw.yaml:1:1: error: expected a mapping (a hardware file)");
}

TEST(HardwareLoaderTest, UnknownNameListsThePresets) {
  absl::StatusOr<Hardware> hw = LoadHardware("v100");
  ASSERT_FALSE(hw.ok());
  EXPECT_EQ(hw.status().message(),
            "unknown hardware 'v100': expected a hardware file or one of a100, b200, h100, h200");
  absl::StatusOr<Hardware> file = LoadHardware("/nonexistent/hw.yaml");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().message(),
            "/nonexistent/hw.yaml: cannot read the hardware file: no such file");
  absl::StatusOr<Hardware> device = LoadHardware("/dev/zero");
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().message(),
            "/dev/zero: cannot read the hardware file: not a regular file");
}

}  // namespace
}  // namespace memplan::simulator
