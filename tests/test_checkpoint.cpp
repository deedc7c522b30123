// Tests of io/checkpoint: a grid block, per-atom rows (float64 and int64, ids scattered over the ranks
// in shuffled order) and replicated values written by 1, 2 or 4 ranks read back bitwise, with other
// decompositions too; commit() leaves only a .tmp before and only the final file after, and rotation
// keeps the newest files of a series; newest_checkpoint skips corrupt files and .tmp files; truncated,
// bit-flipped (raw data and metadata), non-HDF5 and wrong-physics files raise InputError naming the file
// on every rank. File surgery is done by rank 0 between barriers. Timing is not covered.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/agree.hpp"
#include "core/error.hpp"
#include "io/checkpoint.hpp"
#include "io/hdf5_util.hpp"
#include "mpi_world.hpp"
#include "stratus/version.hpp"

namespace fs = std::filesystem;
using stratus::CheckpointMeta;
using stratus::CheckpointReader;
using stratus::CheckpointWriter;
using stratus::InputError;
using stratus::Int3;

namespace chk_test {

using stratus::test::world_rank;
using stratus::test::world_size;

/// A fresh directory (made by rank 0, shared by all ranks), removed at the end of the test case.
struct TempDir {
  std::string path;
  TempDir() {
    std::string p;
    if (world_rank() == 0) {
      std::string pattern = (fs::temp_directory_path() / "stratus_chk_XXXXXX").string();
      if (mkdtemp(pattern.data())) p = pattern;
    }
    path = stratus::bcast_string(MPI_COMM_WORLD, p);
    REQUIRE(!path.empty());
  }
  ~TempDir() {
    MPI_Barrier(MPI_COMM_WORLD);
    std::error_code ec;
    if (world_rank() == 0) fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return (fs::path(path) / name).string(); }
};

constexpr Int3 kGlobal{12, 8, 6};
constexpr int kVars = 3;
constexpr long long kAtoms = 1000;

double grid_value(int var, int i, int j, int k) { return std::sin(1.0 + var + 0.37 * i + 0.011 * j + 0.0007 * k); }
double row_value(long long id, int c) { return std::exp(-1e-3 * static_cast<double>(id)) * (c + 1) + 1.0 / 3.0; }
long long row_int(long long id, int c) { return (static_cast<long long>(c) << 40) - id * 7; }

/// Rank r's slab [r n / P, (r + 1) n / P) of the axis `axis`, the full extent of the others.
void slab(int axis, int rank, int size, Int3& offset, Int3& extent) {
  for (int d = 0; d < 3; ++d) {
    offset[d] = 0;
    extent[d] = kGlobal[d];
  }
  offset[axis] = rank * kGlobal[axis] / size;
  extent[axis] = (rank + 1) * kGlobal[axis] / size - offset[axis];
}

std::vector<double> grid_block(Int3 offset, Int3 extent) {
  std::vector<double> v;
  for (int c = 0; c < kVars; ++c)
    for (int k = 0; k < extent[2]; ++k)
      for (int j = 0; j < extent[1]; ++j)
        for (int i = 0; i < extent[0]; ++i) v.push_back(grid_value(c, offset[0] + i, offset[1] + j, offset[2] + k));
  return v;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

CheckpointMeta make_meta(long step, const std::string& deck) {
  CheckpointMeta m;
  m.physics = "advection";
  m.step = step;
  m.time = 0.1 * static_cast<double>(step) + 1e-17;
  m.deck_text = deck;
  return m;
}

/// Writes the full test content (grid, rows, int rows, values) to `path` and commits it.
void write_full(const std::string& path, long step, const std::string& deck, int keep = 0) {
  const int rank = world_rank(), size = world_size();
  CheckpointWriter w(MPI_COMM_WORLD, path, make_meta(step, deck));
  Int3 offset, extent;
  slab(0, rank, size, offset, extent);
  w.write_grid("state", kVars, kGlobal, offset, extent, grid_block(offset, extent));

  // Atom a lives on rank (7 a) mod P; each rank lists its atoms in a shuffled order.
  std::vector<long long> ids;
  for (long long a = 1; a <= kAtoms; ++a) {
    if ((7 * a) % size == rank) ids.push_back(a);
  }
  std::mt19937 gen(12345u + static_cast<unsigned>(rank));
  std::shuffle(ids.begin(), ids.end(), gen);
  std::vector<double> x;
  std::vector<long long> image;
  for (long long id : ids) {
    for (int c = 0; c < 3; ++c) {
      x.push_back(row_value(id, c));
      image.push_back(row_int(id, c));
    }
  }
  w.write_rows("md/x", kAtoms, 3, ids, x);
  w.write_rows("md/image", kAtoms, 3, ids, image);
  // Only rank 0's values count.
  w.write_values("thermostat", rank == 0 ? std::vector<double>{1.5, -2.25, M_PI} : std::vector<double>{9.0});
  w.write_values("empty", {});
  w.commit(keep);
}

/// Runs f, which must throw InputError on this rank with a message holding every string of `parts`.
template <class F>
void expect_input_error(F&& f, const std::vector<std::string>& parts) {
  std::string what;
  bool thrown = false;
  try {
    f();
  } catch (const InputError& e) {
    thrown = true;
    what = e.what();
  }
  INFO("message: " << what);
  CHECK(thrown);
  for (const auto& p : parts) CHECK(what.find(p) != std::string::npos);
}

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// File offset of the middle of the first chunk of /data/<name> (serial HDF5, rank 0).
long long chunk_middle(const std::string& path, const std::string& name) {
  namespace h5 = stratus::h5;
  h5::File f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "open " + path);
  h5::Dataset ds(H5Dopen2(f.get(), ("data/" + name).c_str(), H5P_DEFAULT), "open " + name);
  h5::Dataspace space(H5Dget_space(ds.get()), "dataspace of " + name);
  hsize_t offset[4];
  unsigned mask = 0;
  haddr_t addr = 0;
  hsize_t size = 0;
  h5::check_status(H5Dget_chunk_info(ds.get(), space.get(), 0, offset, &mask, &addr, &size), "chunk info");
  return static_cast<long long>(addr + size / 2);
}

}  // namespace chk_test

using namespace chk_test;

TEST_CASE("checkpoint round trip is bitwise and independent of the decomposition", "[checkpoint]") {
  const int rank = world_rank(), size = world_size();
  TempDir dir;
  const std::string path = stratus::checkpoint_path(dir.path, "run", 42);
  CHECK(fs::path(path).filename() == "run_chk_00000042.h5");
  // Longer than the 64 KiB that fits in an object header (dense attribute storage).
  const std::string deck = "[run]\nphysics = advection\n# " + std::string(70000, 'd') + "\n";
  write_full(path, 42, deck);

  CheckpointReader r(MPI_COMM_WORLD, path, "advection");
  CHECK(r.meta().physics == "advection");
  CHECK(r.meta().step == 42);
  CHECK(r.meta().time == 0.1 * 42.0 + 1e-17);
  CHECK(r.meta().deck_text == deck);
  CHECK(r.meta().nranks == size);
  CHECK(r.meta().stratus_version == stratus::kVersion);
  CHECK(r.meta().git_hash == stratus::kGitHash);
  CHECK(r.has("state"));
  CHECK(r.has("md/x"));
  CHECK(!r.has("md"));
  CHECK(!r.has("nope"));
  CHECK(r.rows("md/x") == kAtoms);

  // The writer's decomposition, everything on rank 0, and slabs along z.
  for (int layout = 0; layout < 3; ++layout) {
    Int3 offset, extent;
    if (layout == 0) {
      slab(0, rank, size, offset, extent);
    } else if (layout == 1) {
      slab(2, rank == 0 ? 0 : 1, rank == 0 ? 1 : 2, offset, extent);
      if (rank != 0) extent = Int3{0, 0, 0};
    } else {
      slab(2, rank, size, offset, extent);
    }
    INFO("layout " << layout);
    CHECK(same_bits(r.read_grid("state", kVars, kGlobal, offset, extent), grid_block(offset, extent)));
  }

  // Rows in blocks that differ from the writer's (reversed rank order).
  const long long first = (size - 1 - rank) * kAtoms / size, count = (size - rank) * kAtoms / size - first;
  const std::vector<double> x = r.read_rows("md/x", first, count, 3);
  const std::vector<long long> image = r.read_rows_int("md/image", first, count, 3);
  std::vector<double> x_want;
  std::vector<long long> image_want;
  for (long long row = first; row < first + count; ++row) {
    for (int c = 0; c < 3; ++c) {
      x_want.push_back(row_value(row + 1, c));
      image_want.push_back(row_int(row + 1, c));
    }
  }
  CHECK(same_bits(x, x_want));
  CHECK(image == image_want);
  CHECK(same_bits(r.read_values("thermostat"), {1.5, -2.25, M_PI}));
  CHECK(r.read_values("empty").empty());

  // Requests that do not match the file.
  expect_input_error([&] { r.read_grid("state", 2, kGlobal, Int3{0, 0, 0}, Int3{0, 0, 0}); }, {path, "state"});
  expect_input_error([&] { r.read_grid("md/x", kVars, kGlobal, Int3{0, 0, 0}, Int3{0, 0, 0}); }, {path, "md/x"});
  expect_input_error([&] { r.read_rows("md/image", 0, 0, 3); }, {path, "integers"});
  expect_input_error([&] { r.read_rows("md/x", 0, 0, 4); }, {path, "components"});
  expect_input_error([&] { r.read_values("missing"); }, {path, "missing"});
}

TEST_CASE("checkpoint commit is atomic, rotates and the newest valid file is found", "[checkpoint]") {
  const int rank = world_rank();
  TempDir dir;
  const std::string sub = dir / "out/chk";  // created by the writer
  CHECK(stratus::newest_checkpoint(MPI_COMM_WORLD, sub, "run").empty());

  const std::string p100 = stratus::checkpoint_path(sub, "run", 100);
  {
    CheckpointWriter w(MPI_COMM_WORLD, p100, make_meta(100, "deck"));
    w.write_values("v", {1.0});
    if (rank == 0) {
      CHECK(fs::exists(p100 + ".tmp"));
      CHECK(!fs::exists(p100));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    w.commit(2);
    if (rank == 0) {
      CHECK(fs::exists(p100));
      CHECK(!fs::exists(p100 + ".tmp"));
    }
  }
  // A checkpoint of another series in the same directory is never rotated away.
  if (rank == 0) fs::copy_file(p100, stratus::checkpoint_path(sub, "other", 1));
  for (long step : {200L, 300L, 400L}) {
    CheckpointWriter w(MPI_COMM_WORLD, stratus::checkpoint_path(sub, "run", step), make_meta(step, "deck"));
    w.write_values("v", {static_cast<double>(step)});
    w.commit(2);
  }
  if (rank == 0) {
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(sub)) left.push_back(e.path().filename().string());
    std::sort(left.begin(), left.end());
    CHECK(left == std::vector<std::string>{"other_chk_00000001.h5", "run_chk_00000300.h5", "run_chk_00000400.h5"});
    // A newer file that is not a checkpoint, and a newer stray .tmp.
    write_bytes(stratus::checkpoint_path(sub, "run", 500), std::vector<char>(4096, 'x'));
    fs::copy_file(stratus::checkpoint_path(sub, "run", 400), stratus::checkpoint_path(sub, "run", 600) + ".tmp");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(stratus::newest_checkpoint(MPI_COMM_WORLD, sub, "run") == stratus::checkpoint_path(sub, "run", 400));
  CHECK(stratus::newest_checkpoint(MPI_COMM_WORLD, sub, "absent").empty());
  CheckpointReader r(MPI_COMM_WORLD, stratus::checkpoint_path(sub, "run", 400), "advection");
  CHECK(r.read_values("v") == std::vector<double>{400.0});
}

TEST_CASE("damaged, foreign and wrong-physics checkpoints are refused on every rank", "[checkpoint]") {
  const int rank = world_rank();
  TempDir dir;
  const std::string good = stratus::checkpoint_path(dir.path, "run", 7);
  // Longer than the 64 KiB that fit in an object header.
  write_full(good, 7,
             "[run]\nphysics = advection\n#" + std::string(40000, 'a') + "DECKMARKER" + std::string(40000, 'b'));
  const std::string truncated = dir / "truncated.h5", flipped = dir / "flipped.h5", meta_flip = dir / "meta.h5",
                    deck_flip = dir / "deck.h5", foreign = dir / "foreign.h5";
  std::string surgery;  // rank 0's failure to prepare the files, if any
  if (rank == 0) {
    try {
      const std::vector<char> bytes = read_bytes(good);
      write_bytes(truncated, std::vector<char>(bytes.begin(), bytes.begin() + bytes.size() / 2));
      std::vector<char> b = bytes;
      b.at(static_cast<std::size_t>(chunk_middle(good, "state"))) ^= 0x10;
      write_bytes(flipped, b);
      b = bytes;
      const std::string format = "stratus-checkpoint";
      const auto at = std::search(b.begin(), b.end(), format.begin(), format.end());
      if (at == b.end()) throw std::runtime_error("format attribute not found in the file");
      at[5] ^= 0x01;  // in the root group's object header
      write_bytes(meta_flip, b);
      b = bytes;
      const std::string marker = "DECKMARKER";
      const auto at1 = std::search(b.begin(), b.end(), marker.begin(), marker.end());
      if (at1 == b.end()) throw std::runtime_error("deck text not found in the file");
      at1[5] ^= 0x01;
      write_bytes(deck_flip, b);
      std::ofstream(foreign) << "This is not an HDF5 file.\n";
    } catch (const std::exception& e) {
      surgery = e.what();
    }
  }
  surgery = stratus::bcast_string(MPI_COMM_WORLD, surgery);
  INFO(surgery);
  REQUIRE(surgery.empty());

  const auto open = [](const std::string& p, const std::string& physics) {
    return [p, physics] { CheckpointReader r(MPI_COMM_WORLD, p, physics); };
  };
  expect_input_error(open(truncated, "advection"), {truncated});
  expect_input_error(open(flipped, "advection"), {flipped, "state"});
  expect_input_error(open(meta_flip, "advection"), {meta_flip, "checksum"});
  expect_input_error(open(deck_flip, "advection"), {deck_flip, "/deck", "checksum"});
  expect_input_error(open(foreign, "advection"), {foreign, "not a readable HDF5 file"});
  expect_input_error(open(dir / "absent.h5", "advection"), {"absent.h5", "does not exist"});
  expect_input_error(open(good, "euler"),
                     {"checkpoint '" + good + "' is for physics 'advection', the deck runs 'euler'"});
  // The undamaged original still reads.
  CheckpointReader r(MPI_COMM_WORLD, good, "advection");
  CHECK(r.meta().step == 7);
}
