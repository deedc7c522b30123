stratus_add_test(test_shallow_water SOURCES test_shallow_water.cpp NP 1 2 4 LABELS shallow_water)
