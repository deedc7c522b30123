stratus_add_test(test_grid_output SOURCES test_grid_output.cpp NP 1 2 4)
