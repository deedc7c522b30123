stratus_add_test(test_particle_comm SOURCES test_particle_comm.cpp NP 1 2 4 LABELS md)
