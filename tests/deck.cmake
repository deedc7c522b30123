stratus_add_test(test_deck SOURCES test_deck.cpp)
