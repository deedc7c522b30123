stratus_add_test(test_pair_lj SOURCES test_pair_lj.cpp LABELS md)
