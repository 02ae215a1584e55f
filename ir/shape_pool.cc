#include "ir/shape_pool.h"

#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "ir/block_list.h"

namespace memplan::ir {
namespace {

const Shape& NoShape() {
  static const Shape* const kNoShape = new Shape();
  return *kNoShape;
}

template <typename H>
H HashShapeInto(H h, const Shape& s) {
  h = H::combine(std::move(h), static_cast<int>(s.dtype), s.dims, s.dynamic_dims,
                 s.layout.has_value(), s.tuple_elements.size());
  if (s.layout) {
    h = H::combine(std::move(h), s.layout->minor_to_major, s.layout->element_size_bits,
                   s.layout->memory_space, s.layout->details);
  }
  for (const Shape& e : s.tuple_elements) h = HashShapeInto(std::move(h), e);
  return h;
}

struct ShapeKey {
  const Shape* shape;
  template <typename H>
  friend H AbslHashValue(H h, const ShapeKey& k) {
    return HashShapeInto(std::move(h), *k.shape);
  }
  friend bool operator==(const ShapeKey& a, const ShapeKey& b) {
    return SameShape(*a.shape, *b.shape);
  }
};

bool SameLayout(const Layout& a, const Layout& b) {
  return a.minor_to_major == b.minor_to_major && a.element_size_bits == b.element_size_bits &&
         a.memory_space == b.memory_space && a.details == b.details;
}

}  // namespace

bool SameShape(const Shape& a, const Shape& b) {
  if (a.dtype != b.dtype || a.dims != b.dims || a.dynamic_dims != b.dynamic_dims ||
      a.layout.has_value() != b.layout.has_value() ||
      a.tuple_elements.size() != b.tuple_elements.size()) {
    return false;
  }
  if (a.layout && !SameLayout(*a.layout, *b.layout)) return false;
  for (size_t i = 0; i < a.tuple_elements.size(); ++i) {
    if (!SameShape(a.tuple_elements[i], b.tuple_elements[i])) return false;
  }
  return true;
}

SharedShape::SharedShape() : shape_(&NoShape()) {}

struct ShapePool::Storage {
  BlockList<Shape, 64> shapes;
  BlockList<std::string, 64> details;
  absl::flat_hash_set<ShapeKey> index;

  // Points the layout details of `shape` (and its elements) at copies kept here.
  void OwnDetails(Shape& shape) {
    if (shape.layout && !shape.layout->details.empty()) {
      shape.layout->details = details.emplace_back(shape.layout->details);
    }
    for (Shape& e : shape.tuple_elements) OwnDetails(e);
  }
};

ShapePool::ShapePool(const ShapePool& other) : kept_(other.kept_) {
  if (other.own_ != nullptr) kept_.push_back(other.own_);
}

ShapePool& ShapePool::operator=(const ShapePool& other) {
  if (this != &other) *this = ShapePool(other);
  return *this;
}

ShapePool::~ShapePool() = default;

SharedShape ShapePool::Intern(const Shape& shape) {
  if (own_ == nullptr) own_ = std::make_shared<Storage>();
  Storage& s = *own_;
  auto it = s.index.find(ShapeKey{&shape});
  if (it != s.index.end()) return SharedShape(it->shape);
  Shape& kept = s.shapes.emplace_back(shape);
  s.OwnDetails(kept);
  s.index.insert(ShapeKey{&kept});
  return SharedShape(&kept);
}

size_t ShapePool::size() const { return own_ != nullptr ? own_->shapes.size() : 0; }

}  // namespace memplan::ir
