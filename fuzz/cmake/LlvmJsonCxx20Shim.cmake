# memplan_llvm_json_cxx20_shim(OUT_INCLUDE_DIR)
#
# LLVM 14's llvm/Support/JSON.h does not compile with clang 14 in C++20 mode
# against libstdc++ 12 (llvm/llvm-project#55780): class json::Array defines
# members inline that use std::vector<Value> while Value is still
# incomplete, and clang instantiates the now-constexpr vector members at
# once. LLVM 15 fixed it by defining those members after class Value.
#
# This writes a copy of the installed JSON.h with that same change (only
# moving definitions; nothing else differs) into the build tree and returns
# the directory to put first on the include path. GCC needs no shim. When
# the installed header is not the one expected, no shim is made and
# OUT_INCLUDE_DIR is empty.
# Moves one member's definition out of class Array (in `text`, appending to
# `definitions`); clears `ok` when the member is not found.
macro(_memplan_shim_member original declaration definition)
  string(FIND "${text}" "  ${original}" _found)
  if(_found EQUAL -1)
    set(ok FALSE)
  else()
    string(REPLACE "  ${original}" "  ${declaration}" text "${text}")
    string(APPEND definitions "inline ${definition}\n")
  endif()
endmacro()

function(memplan_llvm_json_cxx20_shim out_dir)
  set(${out_dir} "" PARENT_SCOPE)
  set(header "")
  foreach(dir ${LLVM_INCLUDE_DIRS})
    if(EXISTS "${dir}/llvm/Support/JSON.h")
      set(header "${dir}/llvm/Support/JSON.h")
      break()
    endif()
  endforeach()
  if(NOT header)
    return()
  endif()
  file(READ "${header}" text)

  set(anchor "inline bool operator!=(const Value &L, const Value &R) { return !(L == R); }\n")
  string(FIND "${text}" "${anchor}" at)
  if(at EQUAL -1)
    message(STATUS "memplan fuzz: ${header} is not LLVM 14's; no C++20 JSON.h shim")
    return()
  endif()
  set(definitions "\n// memplan fuzz shim: class Array's members, defined once Value is complete.\n")
  set(ok TRUE)
  # Member definitions of class Array that use the vector: each becomes an
  # in-class declaration and an out-of-class definition.
  _memplan_shim_member("Value &operator[](size_t I) { return V[I]; }"
    "inline Value &operator[](size_t I);"
    "Value &Array::operator[](size_t I) { return V[I]; }")
  _memplan_shim_member("const Value &operator[](size_t I) const { return V[I]; }"
    "inline const Value &operator[](size_t I) const;"
    "const Value &Array::operator[](size_t I) const { return V[I]; }")
  _memplan_shim_member("Value &front() { return V.front(); }"
    "inline Value &front();"
    "Value &Array::front() { return V.front(); }")
  _memplan_shim_member("const Value &front() const { return V.front(); }"
    "inline const Value &front() const;"
    "const Value &Array::front() const { return V.front(); }")
  _memplan_shim_member("Value &back() { return V.back(); }"
    "inline Value &back();"
    "Value &Array::back() { return V.back(); }")
  _memplan_shim_member("const Value &back() const { return V.back(); }"
    "inline const Value &back() const;"
    "const Value &Array::back() const { return V.back(); }")
  _memplan_shim_member("Value *data() { return V.data(); }"
    "inline Value *data();"
    "Value *Array::data() { return V.data(); }")
  _memplan_shim_member("const Value *data() const { return V.data(); }"
    "inline const Value *data() const;"
    "const Value *Array::data() const { return V.data(); }")
  _memplan_shim_member("iterator begin() { return V.begin(); }"
    "inline iterator begin();"
    "Array::iterator Array::begin() { return V.begin(); }")
  _memplan_shim_member("const_iterator begin() const { return V.begin(); }"
    "inline const_iterator begin() const;"
    "Array::const_iterator Array::begin() const { return V.begin(); }")
  _memplan_shim_member("iterator end() { return V.end(); }"
    "inline iterator end();"
    "Array::iterator Array::end() { return V.end(); }")
  _memplan_shim_member("const_iterator end() const { return V.end(); }"
    "inline const_iterator end() const;"
    "Array::const_iterator Array::end() const { return V.end(); }")
  _memplan_shim_member("bool empty() const { return V.empty(); }"
    "inline bool empty() const;"
    "bool Array::empty() const { return V.empty(); }")
  _memplan_shim_member("size_t size() const { return V.size(); }"
    "inline size_t size() const;"
    "size_t Array::size() const { return V.size(); }")
  _memplan_shim_member("void reserve(size_t S) { V.reserve(S); }"
    "inline void reserve(size_t S);"
    "void Array::reserve(size_t S) { V.reserve(S); }")
  _memplan_shim_member("void clear() { V.clear(); }"
    "inline void clear();"
    "void Array::clear() { V.clear(); }")
  _memplan_shim_member("void push_back(const Value &E) { V.push_back(E); }"
    "inline void push_back(const Value &E);"
    "void Array::push_back(const Value &E) { V.push_back(E); }")
  _memplan_shim_member("void push_back(Value &&E) { V.push_back(std::move(E)); }"
    "inline void push_back(Value &&E);"
    "void Array::push_back(Value &&E) { V.push_back(std::move(E)); }")
  _memplan_shim_member("void pop_back() { V.pop_back(); }"
    "inline void pop_back();"
    "void Array::pop_back() { V.pop_back(); }")
  _memplan_shim_member("iterator insert(iterator P, const Value &E) { return V.insert(P, E); }"
    "inline iterator insert(iterator P, const Value &E);"
    "Array::iterator Array::insert(iterator P, const Value &E) { return V.insert(P, E); }")
  _memplan_shim_member("iterator insert(iterator P, Value &&E) {\n    return V.insert(P, std::move(E));\n  }"
    "inline iterator insert(iterator P, Value &&E);"
    "Array::iterator Array::insert(iterator P, Value &&E) { return V.insert(P, std::move(E)); }")
  _memplan_shim_member("friend bool operator==(const Array &L, const Array &R) { return L.V == R.V; }"
    "friend bool operator==(const Array &L, const Array &R);"
    "bool operator==(const Array &L, const Array &R) { return L.V == R.V; }")
  if(NOT ok)
    message(STATUS "memplan fuzz: ${header} is not LLVM 14's; no C++20 JSON.h shim")
    return()
  endif()
  string(REPLACE "${anchor}" "${anchor}${definitions}" text "${text}")

  set(dir "${CMAKE_CURRENT_BINARY_DIR}/llvm14-json-shim")
  file(WRITE "${dir}/llvm/Support/JSON.h" "${text}")
  set(${out_dir} "${dir}" PARENT_SCOPE)
endfunction()
