stratus_add_test(test_md_setup SOURCES test_md_setup.cpp LABELS md)
