stratus_add_test(test_checkpoint SOURCES test_checkpoint.cpp NP 1 2 4 LABELS io)
