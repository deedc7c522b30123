# Cell-binned Verlet lists (full and half) against brute-force pair sets, and the rebuild criterion.
stratus_add_test(test_neighbor SOURCES test_neighbor.cpp LABELS neighbor)
