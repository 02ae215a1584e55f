# Every third-party dependency comes from Debian's packages
# (scripts/install-deps.sh installs them).
find_package(absl REQUIRED CONFIG)
find_package(Protobuf REQUIRED)

find_package(LLVM 14 REQUIRED CONFIG
  HINTS /usr/lib/llvm-14/lib/cmake/llvm)
message(STATUS "memplan: LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")
# Only LLVM's Support library: command line, MemoryBuffer, SourceMgr, JSON, YAML.
add_library(memplan_llvm_support INTERFACE)
target_include_directories(memplan_llvm_support SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(memplan_llvm_support INTERFACE ${LLVM_DEFINITIONS})
llvm_map_components_to_libnames(MEMPLAN_LLVM_LIBS support)
target_link_libraries(memplan_llvm_support INTERFACE ${MEMPLAN_LLVM_LIBS})

if(MEMPLAN_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(MEMPLAN_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()

# Graphviz's C library (libgvc, Debian's libgraphviz-dev) renders DOT to SVG
# in process for `memplan analyze --format=svg`.
find_package(PkgConfig REQUIRED)
pkg_check_modules(GVC REQUIRED IMPORTED_TARGET libgvc)
