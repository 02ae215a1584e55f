#include "viz/shard_view.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_join.h"
#include "ir/strings.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "viz/format.h"
#include "viz/table.h"

namespace memplan::viz {
namespace {

using Ranges = std::vector<ir::IndexRange>;

std::string RangesText(const Ranges& ranges) {
  if (ranges.empty()) return "-";
  return absl::StrJoin(ranges, "+", [](std::string* out, const ir::IndexRange& r) {
    StrAppend(out, r.begin, ":", r.end);
  });
}

std::string LocalShape(const ir::ShardLayout& layout, const ir::DeviceShard& shard) {
  ir::Shape shape;
  shape.dtype = layout.global.dtype;
  shape.dims = shard.local_dims;
  return ir::ShapeToString(shape, /*with_layout=*/false);
}

// --- The picture ---------------------------------------------------------------

struct Cell {
  std::vector<int64_t> devices;
  double width = 0;                   // fraction of the columns
  std::optional<double> height;       // fraction of the rows; none for rank 1
};

// Sort key of a block along one dim: where it starts (empty blocks last).
std::pair<int64_t, std::string> BlockKey(const Ranges& ranges, int64_t n) {
  return {ranges.empty() ? n : ranges.front().begin, RangesText(ranges)};
}

int64_t Held(const Ranges& ranges) {
  int64_t n = 0;
  for (const ir::IndexRange& r : ranges) n += r.size();
  return n;
}

// The devices holding each block, blocks in index order: one row for a
// rank-1 array, rows along dim 0 and columns along dim 1 for rank 2.
std::vector<std::vector<Cell>> BuildGrid(const ir::ShardLayout& layout) {
  const std::vector<int64_t>& dims = layout.global.dims;
  const bool one_d = dims.size() == 1;
  std::map<std::pair<int64_t, std::string>, size_t> rows, cols;
  for (const ir::DeviceShard& shard : layout.devices) {
    if (!shard.holds_array) continue;
    if (one_d) {
      cols.emplace(BlockKey(shard.indices[0], dims[0]), 0);
    } else {
      rows.emplace(BlockKey(shard.indices[0], dims[0]), 0);
      cols.emplace(BlockKey(shard.indices[1], dims[1]), 0);
    }
  }
  if (one_d) rows.emplace(std::make_pair(int64_t{0}, std::string()), 0);
  size_t k = 0;
  for (auto& [key, index] : rows) index = k++;
  k = 0;
  for (auto& [key, index] : cols) index = k++;
  std::vector<std::vector<Cell>> grid(rows.size(), std::vector<Cell>(cols.size()));
  for (const ir::DeviceShard& shard : layout.devices) {
    if (!shard.holds_array) continue;
    const size_t row = one_d ? 0 : rows.at(BlockKey(shard.indices[0], dims[0]));
    const Ranges& horizontal = shard.indices[one_d ? 0 : 1];
    const size_t col = cols.at(BlockKey(horizontal, dims[one_d ? 0 : 1]));
    Cell& cell = grid[row][col];
    cell.devices.push_back(shard.device_id);
    cell.width = static_cast<double>(Held(horizontal)) / static_cast<double>(dims[one_d ? 0 : 1]);
    if (!one_d) cell.height = static_cast<double>(Held(shard.indices[0])) / static_cast<double>(dims[0]);
  }
  for (auto& row : grid) {
    for (Cell& cell : row) std::sort(cell.devices.begin(), cell.devices.end());
  }
  return grid;
}

// A cell's label and its padding on each side.
struct Box {
  std::string entry;
  int left = 0, right = 0, top = 0, bottom = 0;
};

// The boxes of a grid, with each column's width and each row's height.
struct Layout {
  std::vector<std::vector<Box>> boxes;
  std::vector<int> col_width;
  std::vector<int> row_height;
};

// JAX's sizing (visualize_sharding with scale=1, min_width=9, max_width=80).
Layout SizeBoxes(const std::vector<std::vector<Cell>>& grid, const std::vector<int64_t>& dims,
                 std::string_view device_label) {
  constexpr int kMinWidth = 9, kMaxWidth = 80;
  const int base_height = 10;
  const bool one_d = dims.size() == 1;
  const double aspect = static_cast<double>(one_d ? 1 : dims[1]) / static_cast<double>(dims[0]);
  const int base_width = static_cast<int>(base_height * aspect);
  const size_t columns = grid.empty() ? 0 : grid[0].size();
  Layout l;
  l.boxes.assign(grid.size(), std::vector<Box>(columns));
  l.col_width.assign(columns, 0);
  l.row_height.assign(grid.size(), 1);
  // Python's divmod floors.
  auto floor_div = [](int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  for (size_t i = 0; i < grid.size(); ++i) {
    for (size_t j = 0; j < columns; ++j) {
      const Cell& cell = grid[i][j];
      Box& box = l.boxes[i][j];
      box.entry = StrCat(device_label, " ", absl::StrJoin(cell.devices, ","));
      int width = static_cast<int>(cell.width * base_width * 2.5);
      const int height = cell.height ? static_cast<int>(*cell.height * base_height) : 1;
      width = std::min(std::max(width, kMinWidth), kMaxWidth);
      const int entry = static_cast<int>(box.entry.size());
      box.left = floor_div(width - entry - 2, 2);
      box.right = box.left + (width - entry - 2) - 2 * box.left;
      box.top = floor_div(height - 2, 2);
      box.bottom = box.top + (height - 2) - 2 * box.top;
      box.left = std::max(box.left, 0);
      box.right = std::max(box.right, 0);
      box.top = std::max(box.top, 0);
      box.bottom = std::max(box.bottom, 0);
      l.col_width[j] = std::max(l.col_width[j], box.left + entry + box.right);
      l.row_height[i] = std::max(l.row_height[i], box.top + 1 + box.bottom);
    }
  }
  return l;
}

// The boxes drawn with box-drawing characters, labels centred.
std::string DrawBoxes(const Layout& l) {
  const size_t columns = l.col_width.size();
  auto rule = [&](const char* left, const char* middle, const char* right) {
    std::string line = left;
    for (size_t j = 0; j < columns; ++j) {
      if (j > 0) line += middle;
      for (int w = 0; w < l.col_width[j]; ++w) line += "─";
    }
    return line + right + "\n";
  };
  std::string out = rule("┌", "┬", "┐");
  for (size_t i = 0; i < l.boxes.size(); ++i) {
    if (i > 0) out += rule("├", "┼", "┤");
    for (int line = 0; line < l.row_height[i]; ++line) {
      out += "│";
      for (size_t j = 0; j < columns; ++j) {
        if (j > 0) out += "│";
        const Box& box = l.boxes[i][j];
        const int width = l.col_width[j];
        if (line != box.top) {
          out += std::string(static_cast<size_t>(width), ' ');
          continue;
        }
        const int inner = width - box.left - box.right;
        const int excess = std::max(0, inner - static_cast<int>(box.entry.size()));
        const int lead = box.left + excess / 2;
        std::string text = std::string(static_cast<size_t>(lead), ' ') + box.entry;
        text += std::string(static_cast<size_t>(std::max(0, width - static_cast<int>(text.size()))), ' ');
        out += text;
      }
      out += "│\n";
    }
  }
  out += rule("└", "┴", "┘");
  return out;
}

}  // namespace

std::string RenderShardPicture(const ir::ShardLayout& layout, std::string_view device_label) {
  const std::vector<int64_t>& dims = layout.global.dims;
  if (dims.empty() || dims.size() > 2) return "";
  for (int64_t d : dims) {
    if (d <= 0) return "";
  }
  return DrawBoxes(SizeBoxes(BuildGrid(layout), dims, device_label));
}

namespace {

std::string FormName(const ir::ShardLayout& layout) {
  switch (layout.form) {
    case ir::ShardLayout::Form::kTiled:
      return "tiled";
    case ir::ShardLayout::Form::kReplicated:
      return "replicated";
    case ir::ShardLayout::Form::kMaximal:
      return "maximal";
    case ir::ShardLayout::Form::kManual:
      return "manual";
    case ir::ShardLayout::Form::kUnreduced:
      return "unreduced";
  }
  return "";
}

std::string SemanticsName(const ir::ShardLayout& layout) {
  return layout.semantics == ir::ShardLayout::Semantics::kXla ? "xla" : "dtensor";
}

std::string Bytes(int64_t bytes) {
  return bytes < 1024 ? HumanBytes(bytes) : StrCat(HumanBytes(bytes), " (", GroupedBytes(bytes), " B)");
}

void AppendLayoutText(std::string& out, const ShardReportInput& input, const ir::ShardLayout& layout) {
  const ir::Shape& global = layout.global;
  StrAppend(&out, "array        ", ir::ShapeToString(global, false), ", ", Bytes(layout.global_bytes), "\n");
  if (layout.semantics == ir::ShardLayout::Semantics::kXla) {
    StrAppend(&out, "semantics    XLA: a dim split d ways gives every device ceil(N/d) of it, padded\n");
  } else {
    StrAppend(&out, "semantics    DTensor: torch.chunk sizes, unpadded (a chunk may be empty)\n");
  }
  std::vector<std::string> split;
  for (size_t d = 0; d < layout.ways.size(); ++d) {
    if (layout.ways[d] > 1) split.push_back(StrCat("dim ", d, " ", layout.ways[d], " ways"));
  }
  std::string how = split.empty() ? FormName(layout) : absl::StrJoin(split, ", ");
  if (layout.replication > 1) StrAppend(&how, "; ", layout.replication, " replicas");
  if (layout.unreduced_ways > 1) StrAppend(&how, "; ", layout.unreduced_ways, " partial sums (unreduced)");
  if (layout.manual_ways > 1) StrAppend(&how, "; ", layout.manual_ways, " manual groups");
  StrAppend(&out, "split        ", how, " (", layout.copies, layout.copies == 1 ? " copy" : " copies",
            " of each element)\n");
  StrAppend(&out, "per device   max ", Bytes(layout.max_bytes), "; ", layout.devices.size(), " devices hold ",
            Bytes(layout.total_bytes));
  if (layout.padding_bytes > 0) StrAppend(&out, ", of which padding ", Bytes(layout.padding_bytes));
  StrAppend(&out, "\n\n");

  const std::string picture = RenderShardPicture(layout, input.device_label);
  if (!picture.empty()) {
    StrAppend(&out, picture, "\n");
  } else if (global.dims.size() > 2) {
    StrAppend(&out, "(no picture for rank ", global.dims.size(), ": like jax.debug.visualize_array_sharding, ",
              "only ranks 1 and 2 are drawn)\n\n");
  }

  TextTable table({{"device", TextTable::Align::kRight},
                   {"position", TextTable::Align::kRight},
                   {layout.semantics == ir::ShardLayout::Semantics::kXla ? "tile" : "mesh coord"},
                   {"shard"},
                   {"bytes", TextTable::Align::kRight},
                   {"indices"}});
  for (const ir::DeviceShard& shard : layout.devices) {
    std::string indices = "-";
    if (shard.holds_array) {
      indices = StrCat("[", absl::StrJoin(shard.indices, ", ", [](std::string* s, const Ranges& r) {
                         StrAppend(s, RangesText(r));
                       }),
                       "]");
    }
    table.AddRow({StrCat(shard.device_id), StrCat(shard.position),
                  shard.coordinate.empty() ? "-" : StrCat("(", absl::StrJoin(shard.coordinate, ","), ")"),
                  shard.holds_array ? LocalShape(layout, shard) : "-", GroupedBytes(shard.bytes), indices});
  }
  StrAppend(&out, table.Render());
}

}  // namespace

std::string RenderShardText(const ShardReportInput& input) {
  std::string out;
  StrAppend(&out, "input        ", input.notation, ": ", input.text, "\n");
  if (input.mesh) StrAppend(&out, "mesh         ", input.mesh->ToString(), "\n");
  if (!input.placements.empty()) {
    StrAppend(&out, "placements   [", absl::StrJoin(input.placements, ", ", [](std::string* s, const ir::Placement& p) {
                StrAppend(s, p.ToString());
              }),
              "]\n");
  }
  if (input.hlo_sharding) {
    const bool dtensor = input.notation == "DTensor";
    StrAppend(&out, "HloSharding  ", input.hlo_sharding->ToString(),
              dtensor ? "  (splits alike where sizes divide; XLA pads uneven shards, DTensor does not)" : "", "\n");
  } else if (input.notation == "DTensor") {
    StrAppend(&out, "HloSharding  none splits like these placements\n");
  }
  if (input.hlo_sharding_as_written) {
    StrAppend(&out, "as written   ", *input.hlo_sharding_as_written, "  (XLA reads it as above)\n");
  }
  if (input.op_sharding_bytes) StrAppend(&out, "OpSharding   ", *input.op_sharding_bytes, "\n");
  if (!input.memory_kind.empty()) {
    StrAppend(&out, "memory kind  ", input.memory_kind,
              input.memory_kind == "device" ? "" : "  (the bytes below are in this memory, not device memory)", "\n");
  }
  for (size_t i = 0; i < input.layouts.size(); ++i) {
    if (input.layouts.size() > 1) StrAppend(&out, "\n-- tuple element ", i, " --\n");
    StrAppend(&out, "\n");
    AppendLayoutText(out, input, input.layouts[i]);
  }
  return MarkupSafeText(out);  // names come from the input: no terminal escapes
}

namespace {

std::string Utf8(std::string_view s) {
  const llvm::StringRef ref(s.data(), s.size());
  return llvm::json::isUTF8(ref) ? std::string(s) : llvm::json::fixUTF8(ref);
}

void WriteLayoutJson(llvm::json::OStream& j, const ir::ShardLayout& layout) {
  j.object([&] {
    j.attribute("shape", ir::ShapeToString(layout.global, false));
    j.attribute("semantics", SemanticsName(layout));
    j.attribute("form", FormName(layout));
    j.attribute("global_bytes", layout.global_bytes);
    j.attributeArray("ways", [&] {
      for (int64_t w : layout.ways) j.value(w);
    });
    j.attribute("copies", layout.copies);
    j.attribute("replication", layout.replication);
    j.attribute("unreduced_ways", layout.unreduced_ways);
    j.attribute("manual_ways", layout.manual_ways);
    j.attribute("max_bytes", layout.max_bytes);
    j.attribute("total_bytes", layout.total_bytes);
    j.attribute("padding_bytes", layout.padding_bytes);
    j.attributeArray("devices", [&] {
      for (const ir::DeviceShard& shard : layout.devices) {
        j.object([&] {
          j.attribute("device", shard.device_id);
          j.attribute("position", shard.position);
          j.attributeArray("coordinate", [&] {
            for (int64_t c : shard.coordinate) j.value(c);
          });
          j.attribute("holds_array", shard.holds_array);
          j.attribute("shard_shape", shard.holds_array ? LocalShape(layout, shard) : "");
          j.attributeArray("shard_dims", [&] {
            for (int64_t d : shard.local_dims) j.value(d);
          });
          j.attribute("bytes", shard.bytes);
          j.attribute("held_elements", shard.held_elements);
          j.attributeArray("indices", [&] {
            for (const Ranges& ranges : shard.indices) {
              j.array([&] {
                for (const ir::IndexRange& r : ranges) {
                  j.array([&] {
                    j.value(r.begin);
                    j.value(r.end);
                  });
                }
              });
            }
          });
        });
      }
    });
  });
}

}  // namespace

std::string RenderShardJson(const ShardReportInput& input) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::json::OStream j(os, /*IndentSize=*/2);
  j.object([&] {
    j.attribute("schema_version", kShardJsonSchemaVersion);
    j.attributeObject("input", [&] {
      j.attribute("notation", input.notation);
      j.attribute("text", Utf8(input.text));
    });
    if (input.mesh) {
      j.attributeObject("mesh", [&] {
        j.attributeArray("axes", [&] {
          for (const ir::MeshAxis& axis : input.mesh->axes) {
            j.object([&] {
              j.attribute("name", Utf8(axis.name));
              j.attribute("size", axis.size);
            });
          }
        });
        j.attributeArray("device_ids", [&] {
          for (int64_t id : input.mesh->DeviceIds()) j.value(id);
        });
      });
    }
    if (!input.placements.empty()) {
      j.attributeArray("placements", [&] {
        for (const ir::Placement& p : input.placements) j.value(Utf8(p.ToString()));
      });
    }
    if (input.hlo_sharding) {
      j.attribute("hlo_sharding", Utf8(input.hlo_sharding->ToString()));
    } else {
      j.attribute("hlo_sharding", nullptr);
    }
    if (input.hlo_sharding_as_written) j.attribute("hlo_sharding_as_written", Utf8(*input.hlo_sharding_as_written));
    if (input.op_sharding_bytes) j.attribute("op_sharding", Utf8(*input.op_sharding_bytes));
    if (!input.memory_kind.empty()) j.attribute("memory_kind", Utf8(input.memory_kind));
    j.attributeArray("layouts", [&] {
      for (const ir::ShardLayout& layout : input.layouts) WriteLayoutJson(j, layout);
    });
  });
  os.flush();
  out += "\n";
  return out;
}

}  // namespace memplan::viz
