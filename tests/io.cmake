stratus_add_test(test_grid_output SOURCES test_grid_output.cpp NP 1 2 4)
stratus_add_test(test_output_dir SOURCES test_output_dir.cpp)
