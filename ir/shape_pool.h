// Shapes shared by content: most instructions of a module repeat a few
// shapes, so a module keeps each distinct shape once (ShapePool) and its
// instructions point at it (SharedShape).
#ifndef MEMPLAN_IR_SHAPE_POOL_H_
#define MEMPLAN_IR_SHAPE_POOL_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "ir/shape.h"

namespace memplan::ir {

// A read-only view of a shape that some ShapePool (or static storage) owns:
// one pointer. Default: a shape with dtype kInvalid (the input does not say).
// Reads as a `const Shape&`; to change an instruction's shape, intern the
// new one (Module::InternShape) and assign it.
class SharedShape {
 public:
  SharedShape();
  // Requires `shape` to outlive every copy of this view.
  explicit SharedShape(const Shape* shape) : shape_(shape) {}

  const Shape& operator*() const { return *shape_; }
  const Shape* operator->() const { return shape_; }
  operator const Shape&() const { return *shape_; }  // NOLINT: reads as the shape
  const Shape* get() const { return shape_; }

 private:
  const Shape* shape_;
};

// Keeps one copy of each distinct shape (equal dtype, dimensions, dynamic
// dimensions, layout including its details text, tuple elements) at a
// stable address. An interned shape's layout details are copies the pool
// owns, so comparing them never reads the input again.
//
// A copy of a pool keeps the shapes made so far alive (shared with the
// original) and interns new shapes in storage of its own: copies never
// write to shared storage, so copies used on different threads are safe.
class ShapePool {
 public:
  ShapePool() = default;
  ShapePool(const ShapePool& other);
  ShapePool& operator=(const ShapePool& other);
  ShapePool(ShapePool&&) noexcept = default;
  ShapePool& operator=(ShapePool&&) noexcept = default;
  ~ShapePool();

  // A view of the pool's shape equal to `shape` (made on first use); valid
  // for as long as this pool or any copy of it lives.
  SharedShape Intern(const Shape& shape);

  // Distinct shapes interned in this pool's own storage.
  size_t size() const;

 private:
  struct Storage;
  std::shared_ptr<Storage> own_;  // made on first Intern
  std::vector<std::shared_ptr<const Storage>> kept_;  // copied pools' shapes
};

// Shapes equal in every field ShapePool compares.
bool SameShape(const Shape& a, const Shape& b);

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_SHAPE_POOL_H_
