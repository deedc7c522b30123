// The shortest decimal text of a double that reads back as the same double, exactly as std::to_chars(first,
// last, value) writes it (the digits of Ryu's shortest form; fixed or scientific, whichever is shorter), at
// about two thirds of its cost where it matters: the LAMMPS data files of MD runs print six doubles per
// atom, and GCC 12's to_chars took 93 ns a double on the development machine.
#pragma once

namespace stratus {

/// Writes v at out (room for 32 characters) as std::to_chars(out, out + 32, v) does; returns the end. Values
/// of magnitude in [2^-13, 2^52) take an exact integer path of its own (128-bit products), all others
/// std::to_chars.
char* to_chars_shortest(char* out, double v);

}  // namespace stratus
