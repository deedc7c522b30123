// Molecular-dynamics trajectories in H5MD 1.1 (https://www.nongnu.org/h5md/), written collectively with
// parallel HDF5, plus an XDMF sidecar for ParaView and VisIt.
//
// Layout of one file (N atoms, F frames; G is H5mdSpec::particle_group, "all" by default):
//   /h5md                         attribute version = int32[2] {1, 1}
//   /h5md/author, /h5md/creator   attributes name (author), name = "Stratus" and version (creator)
//   /parameters                   attributes box_lo (double[3]), the four unit strings as given,
//                                 stratus_version, git_hash: what the H5MD elements leave out
//   /particles/G/box              attributes dimension = 3, boundary = string[3] ("periodic" / "none")
//   /particles/G/box/edges        time-dependent: value double[F, 3, 3], the diagonal matrix of the box
//                                 lengths (H5MD's triclinic form; MDAnalysis reads only that form)
//   /particles/G/position         step int64[F], time double[F], value double[F, N, 3] (wrapped into the
//                                 box in periodic directions)
//   /particles/G/velocity, force  value double[F, N, 3] (when enabled); their step and time, and those of
//                                 box/edges and image, are hard links to position's, as H5MD allows for
//                                 elements sampled together
//   /particles/G/image            value int32[F, N, 3] (when enabled): the periodic image of each atom, so
//                                 that position + image * edges is its unwrapped position (H5MD's image)
//   /particles/G/species          int32[N] (the atom types of the first frame), /particles/G/id int64[N] = 1..N
// Row r of every per-atom dataset is the atom with id r + 1, so a file does not depend on the rank count.
//
// Units: a unit string becomes the `unit` attribute of the matching value (and of time) only when it is
// a physical unit in H5MD notation ("nm", "ps", "nm ps-1", "kJ mol-1 nm-1", ...). Reduced Lennard-Jones
// units (strings built only from sigma, tau and epsilon, like "sigma/tau") and empty strings get no
// attribute, since H5MD readers reject unknown units: MDAnalysis then loads the file with
// convert_units=False. The strings as given are always kept under /parameters.
// MDAnalysis 2.4 opens a file as Universe(FILE) only when G is "trajectory" and the units are physical
// (its atom-count probe hard-codes that group and takes no keyword arguments); otherwise
// Universe(FILE, n_atoms=N[, convert_units=False]) reads it. String attributes of the H5MD elements are
// variable-length UTF-8, which h5py returns as str (fixed-length ones come back as bytes, and MDAnalysis
// then fails to recognise the units).
//
// The file is opened and closed around every frame, so between frames it is complete on disk and the
// writer holds no HDF5 identifiers. This module does not decide when to write; the run loop does.
#pragma once
#include <mpi.h>

#include <array>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "io/row_exchange.hpp"
#include "io/xdmf.hpp"

namespace stratus {

struct H5mdSpec {
  long long natoms = 0;  // global count; atom ids must be exactly 1..natoms
  Real3 lo{}, hi{};      // orthogonal box, length units
  std::array<bool, 3> periodic{true, true, true};
  std::string length_unit, time_unit, velocity_unit, force_unit;  // e.g. "sigma", "tau", "sigma/tau"
  bool velocities = true, forces = false;
  bool images = false;                 // the image element (3n image flags per frame)
  bool charges = false;                // a fixed dataset `charge` (of the first frame), with charge_unit
  std::string charge_unit;
  std::string creator_version;         // e.g. stratus::kVersion
  std::string author;                  // /h5md/author name; empty: rank 0's $USER, else "unknown"
  std::string particle_group = "all";  // the group under /particles
};

class H5mdWriter {
 public:
  /// Collective over comm. Creates (truncates) `path` and every group and dataset of the layout above
  /// (the parent directory is created if missing). Throws Error on every rank if the spec is invalid or
  /// the file cannot be created.
  H5mdWriter(MPI_Comm comm, const std::string& path, const H5mdSpec& spec);

  /// Collective. Appends one frame at (step, time), which must be the same on every rank (rank 0's are
  /// stored), and rewrites the XDMF sidecar. Each rank passes its
  /// own atoms in any order (host arrays): n ids, x (3n positions, atom-major), v (3n velocities, ignored
  /// unless spec.velocities), f (3n forces, ignored unless spec.forces), n species, n charges (unless
  /// spec.charges, may be empty), 3n image flags (unless spec.images, may be empty). Positions outside the
  /// box in a periodic direction are wrapped into it and their image flags adjusted to match. The species and charges
  /// of the first frame are the ones stored. Throws the same Error on every rank if any rank passes arrays of the wrong
  /// length or an id outside 1..natoms, or if the ids are not each of 1..natoms exactly once.
  void write_frame(long step, double time, HostSpan<long long> id, HostSpan<double> x, HostSpan<double> v,
                   HostSpan<double> f, HostSpan<int> species, HostSpan<double> charge = {}, HostSpan<int> image = {});

  /// Rank 0 writes `<path without its extension>.xmf`: a temporal collection with one Polyvertex grid per
  /// frame written so far (geometry: the hyperslab [frame, 0:N, 0:3] of position/value, from the dataset
  /// as it was when the frame was written, so that an entry never changes; attributes: species, id and
  /// velocity). write_frame calls it as xdmf::SeriesPacing says; collective, and throws on every rank on
  /// failure.
  void write_xdmf();
  /// Collective. write_xdmf() if a frame is not in the sidecar yet (at a checkpoint and at the end).
  void flush_xdmf();

  /// The bytes of data a frame puts in a file of this layout (the first also the species, ids and charges).
  static double frame_bytes(const H5mdSpec& spec, bool first);

  long frames() const { return static_cast<long>(frames_.size()); }
  /// The communicator the writer's collective calls run on.
  MPI_Comm comm() const { return comm_; }
  const std::string& path() const { return path_; }
  const std::string& xdmf_path() const { return xdmf_path_; }
  /// Totals on this rank: seconds in write_frame, and bytes of data the frames put in the file (all ranks).
  double seconds() const { return seconds_; }
  double bytes_written() const { return bytes_; }

 private:
  struct Frame {
    long step;
    double time;
    std::string entry;  // its grid in the XDMF sidecar
  };
  /// Frame k's grid in the XDMF sidecar.
  std::string xdmf_entry(long k, long step, double time) const;
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::string path_, xdmf_path_;
  H5mdSpec spec_;
  std::vector<Frame> frames_;
  xdmf::SeriesPacing pacing_;
  double seconds_ = 0.0, bytes_ = 0.0;
  // A frame's buffers, kept for the next one (see scratch() in io/row_exchange.hpp).
  RowRouter rows_;
  HostBuffer<double> pos_, vel_, force_, charges_;
  HostBuffer<int> types_, images_;
};

}  // namespace stratus
