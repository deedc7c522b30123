stratus_add_test(test_advection SOURCES test_advection.cpp NP 1 2 4 LABELS advection)
