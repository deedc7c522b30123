# Shell-driven tests of the stratus executable: bad input (exit code 2, nothing written) and the output
# of short runs at 1, 2 and 4 ranks (bitwise-identical fields, HDF5/XDMF layout, history table).
stratus_add_script_test(cli_errors cli_errors.sh)
stratus_add_script_test(cli_output cli_output.sh)
stratus_add_script_test(cli_climate cli_climate.sh)
stratus_add_script_test(cli_restart cli_restart.sh)
