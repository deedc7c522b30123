# Shell-driven tests of the stratus executable: bad input (exit code 2, nothing written) and the output
# of short runs at 1, 2 and 4 ranks (bitwise-identical fields, HDF5/XDMF layout, history table), and
# what goes wrong on a shared cluster.
stratus_add_script_test(cli_errors cli_errors.sh)
stratus_add_script_test(cli_output cli_output.sh)
stratus_add_script_test(cli_climate cli_climate.sh)
stratus_add_script_test(cli_restart cli_restart.sh)
# Full disks (tmpfs), stuck ranks and stop signals, the output-directory lock, error lines at 2 ranks,
# damaged checkpoint metadata (exit 77 where no tmpfs can be mounted).
stratus_add_script_test(cli_hardening cli_hardening.sh)
set_tests_properties(cli_hardening PROPERTIES SKIP_RETURN_CODE 77 PROCESSORS 2)
# The apt source entry that the first run adds to fetch Kokkos' source (fake apt roots, no network).
stratus_add_script_test(deb_src_entry deb_src_entry.sh)
