# The postprocessing tools of scripts/post/ (history plots, slices, HDF5 comparison, the ParaView render
# when pvbatch is installed) on two tiny runs; skipped (77) without python3-h5py/-numpy/-matplotlib.
stratus_add_script_test(post_scripts post_scripts.sh)
set_tests_properties(post_scripts PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS "cli;python")
