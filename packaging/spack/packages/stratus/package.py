# Spack package for Stratus, in a Spack repository of its own (packaging/spack). From a checkout:
#   spack repo add packaging/spack
#   spack dev-build stratus@0.1.0 +openmp                         # CPU nodes
#   spack dev-build stratus@0.1.0 +cuda cuda_arch=90 ~openmp      # H100 / H200 nodes
# (`spack dev-build` builds the checkout it runs in; a site mirror of the sources can add a url.) The
# install is the `cmake --install` tree: bin/stratus, share/stratus/{inputs,post,slurm}, share/doc/stratus,
# and an Lmod module in share/modulefiles (Spack's own module generation works too).
from spack.package import *


class Stratus(CMakePackage, CudaPackage):
    """Domain-decomposed Kokkos + MPI solvers for molecular dynamics (Lennard-Jones, PPPM electrostatics)
    and climate stencils (compressible Euler, shallow water), with parallel HDF5 / H5MD output."""

    maintainers = []

    version("0.1.0")

    variant("openmp", default=True, description="Kokkos OpenMP backend on the host")
    variant("native", default=False, description="Compile host code with -march=native (STRATUS_NATIVE)")
    conflicts("+cuda", when="cuda_arch=none", msg="+cuda needs a cuda_arch, e.g. cuda_arch=90 for H100/H200")

    depends_on("cmake@3.18:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("mpi@3:")
    depends_on("hdf5@1.10:+mpi+hl")
    depends_on("boost@1.66:+program_options")
    depends_on("fftw@3:")
    depends_on("catch2@2", type="test")
    depends_on("kokkos@3.4:3")
    depends_on("kokkos+openmp", when="+openmp")
    depends_on("kokkos~openmp", when="~openmp")
    depends_on("kokkos+cuda+cuda_lambda+wrapper", when="+cuda")
    for arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos cuda_arch={arch}", when=f"+cuda cuda_arch={arch}")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define("Kokkos_ROOT", spec["kokkos"].prefix),
            self.define("STRATUS_ENABLE_TESTS", self.run_tests),
            self.define_from_variant("STRATUS_NATIVE", "native"),
        ]
        if spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CXX_COMPILER", spec["kokkos"].kokkos_cxx))
        return args

    @run_after("install")
    @on_package_attributes(run_tests=True)
    def check_installed(self):
        """The installed executable runs its built-in default deck."""
        with working_dir(self.build_directory):
            Executable(join_path(self.prefix.bin, "stratus"))("check")
