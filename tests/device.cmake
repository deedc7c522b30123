stratus_add_test(test_device SOURCES test_device.cpp LABELS device)
