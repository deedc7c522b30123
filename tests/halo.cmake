stratus_add_test(test_halo SOURCES test_halo.cpp NP 1 2 4 LABELS halo)
