// The code paths of a GPU build, taken at run time by a CPU build where both exist, so that the CPU test
// suite runs them: a forgotten copy between device buffers and their host mirrors, a fused halo kernel or
// a full neighbor list would otherwise first run on a GPU. On a CPU build they are switched on by the
// environment variable STRATUS_GPU_PATHS=1 (for tests; tests/CMakeLists.txt runs some test executables
// that way); a GPU build always takes them.
#pragma once

namespace stratus {

/// True in a build whose default memory space the host cannot read (CUDA, HIP), or when STRATUS_GPU_PATHS
/// is 1 (read once). Then: messages are staged through host buffers distinct from the device buffers
/// (comm/staging.hpp), halos are packed by the fused kernels (comm/grid_halo.hpp), grid loops take the GPU
/// index order (domain/local_grid.hpp), md.neighbor = auto gives full lists, neighbor lists are stored
/// slot by slot (solvers/neighbor/neighbor_list.hpp), k-space sums are fixed-point
/// by default, the pair kernel accumulates through its ScatterView even on one thread, and the split Euler
/// scheme runs its flux kernels instead of the line kernels.
bool gpu_paths();

}  // namespace stratus
