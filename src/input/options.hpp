// One statement per deck key: an Options<P> binding declares the key (default, unit, help, and the
// OptionSpec validation chained after it) and reads it into a field of the parameter struct P. The same
// statements run in two modes: declaring into an OptionRegistry (help-deck, validation) and reading a
// parsed Deck into a P. A parameter struct writes them once, in
//
//   template <class B> static void bind(B& o) {
//     o.real(&EulerParams::hv_beta, "euler.hv_beta", 0.25, "1", "hyperviscosity strength").at_least(0).at_most(1);
//     o.choice(&EulerParams::test, "euler.case", kEulerCases, EulerCase::thermal, "test case");
//   }
//
// and declare_options<P>(reg) / read_options<P>(deck) run it. A field is a data-member pointer or a
// callable returning a reference into P (for an element of an array member). Integer fields of type
// int are range-checked (Deck::get_int32); fixed-size list fields (T[N], std::array, Kokkos::Array) set
// the list size of the declaration. Choice keys take their names, their parse and their help text from
// one table. In read mode the chained setters act on a scratch spec: validation happened when the deck
// was parsed. Keys that need more than a typed read (custom syntax, relations between keys) are checked
// by the owner after its bind(). Plain C++17, host only.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "input/deck.hpp"

namespace stratus {

/// The names of a choice key and the value each stands for, in the order help-deck lists them.
template <class T>
using Choices = std::vector<std::pair<std::string, T>>;

/// The name of `value` in `table` (Error if the table lacks it: a bug in the table).
template <class T>
const std::string& name_of(const Choices<T>& table, const T& value) {
  for (const auto& c : table)
    if (c.second == value) return c.first;
  throw Error("choice table: a value has no name");
}

/// The value named `name` (Error if absent; the deck admits only the table's names).
template <class T>
T value_of(const Choices<T>& table, const std::string& name) {
  for (const auto& c : table)
    if (c.first == name) return c.second;
  throw Error("choice table: no value named '" + name + "'");
}

template <class T>
std::vector<std::string> names_of(const Choices<T>& table) {
  std::vector<std::string> out;
  for (const auto& c : table) out.push_back(c.first);
  return out;
}

namespace options_detail {

// Element count and type of a fixed-size array type: T[N], std::array<T, N>, Kokkos::Array<T, N>.
template <class A>
struct Fixed : std::false_type {};
template <class E, std::size_t N>
struct Fixed<E[N]> : std::true_type {
  using element = E;
  static constexpr std::size_t size = N;
};
template <template <class, std::size_t, class...> class A, class E, std::size_t N, class... R>
struct Fixed<A<E, N, R...>> : std::true_type {
  using element = E;
  static constexpr std::size_t size = N;
};

template <class T>
struct IsVector : std::false_type {};
template <class E>
struct IsVector<std::vector<E>> : std::true_type {};

}  // namespace options_detail

template <class P>
class Options {
 public:
  /// The type a field of P refers to (for a member pointer, the member's type).
  template <class F>
  using Field = std::remove_reference_t<std::invoke_result_t<F, P&>>;

  /// Declaring mode: every binding adds its key to `reg` and returns the new spec.
  explicit Options(OptionRegistry& reg) : reg_(&reg) {}
  /// Reading mode: every binding stores the key's value from `deck` into `out`.
  Options(const Deck& deck, P& out) : deck_(&deck), out_(&out) {}

  bool declaring() const { return reg_ != nullptr; }
  /// The deck being read (nullptr when declaring).
  const Deck* deck() const { return deck_; }

  /// Into int (range-checked), long, long long or unsigned long long.
  template <class F>
  OptionSpec& integer(F f, const std::string& key, long long def, const std::string& unit, const std::string& help) {
    using T = Field<F>;
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>, "integer(): the field must be an integer");
    static_assert(std::is_same_v<T, int> || sizeof(T) >= sizeof(long long),
                  "integer(): the field must be int or hold 64 bits");
    if (reg_) return reg_->add_int(key, def, unit, help);
    if constexpr (std::is_same_v<T, int>)
      field(f) = deck_->get_int32(key);
    else
      field(f) = static_cast<T>(deck_->get_int(key));
    return scratch_;
  }

  template <class F>
  OptionSpec& real(F f, const std::string& key, double def, const std::string& unit, const std::string& help) {
    static_assert(std::is_same_v<Field<F>, double>, "real(): the field must be a double");
    if (reg_) return reg_->add_real(key, def, unit, help);
    field(f) = deck_->get_real(key);
    return scratch_;
  }

  template <class F>
  OptionSpec& string(F f, const std::string& key, const std::string& def, const std::string& unit,
                     const std::string& help) {
    static_assert(std::is_same_v<Field<F>, std::string>, "string(): the field must be a std::string");
    if (reg_) return reg_->add_string(key, def, unit, help);
    field(f) = deck_->get_string(key);
    return scratch_;
  }

  template <class F>
  OptionSpec& boolean(F f, const std::string& key, bool def, const std::string& unit, const std::string& help) {
    static_assert(std::is_same_v<Field<F>, bool>, "boolean(): the field must be a bool");
    if (reg_) return reg_->add_bool(key, def, unit, help);
    field(f) = deck_->get_bool(key);
    return scratch_;
  }

  /// Into std::vector<long long>, std::vector<int> (range-checked) or a fixed-size array of int.
  template <class F>
  OptionSpec& integers(F f, const std::string& key, const std::vector<long long>& def, const std::string& unit,
                       const std::string& help) {
    using T = Field<F>;
    if (reg_) return sized<T>(reg_->add_ints(key, def, unit, help));
    if constexpr (std::is_same_v<T, std::vector<long long>>)
      field(f) = deck_->get_ints(key);
    else if constexpr (std::is_same_v<T, std::vector<int>>)
      field(f) = deck_->get_ints32(key);
    else
      copy_fixed<T, int>(field(f), deck_->get_ints32(key), key);
    return scratch_;
  }

  /// Into std::vector<double> or a fixed-size array of double.
  template <class F>
  OptionSpec& reals(F f, const std::string& key, const std::vector<double>& def, const std::string& unit,
                    const std::string& help) {
    using T = Field<F>;
    if (reg_) return sized<T>(reg_->add_reals(key, def, unit, help));
    if constexpr (std::is_same_v<T, std::vector<double>>)
      field(f) = deck_->get_reals(key);
    else
      copy_fixed<T, double>(field(f), deck_->get_reals(key), key);
    return scratch_;
  }

  /// A string key whose allowed values are the names of `table`; the field receives the named value.
  template <class F>
  OptionSpec& choice(F f, const std::string& key, const Choices<Field<F>>& table, const Field<F>& def,
                     const std::string& help) {
    if (reg_) return reg_->add_string(key, name_of(table, def), "", help).one_of(names_of(table));
    field(f) = value_of(table, deck_->get_string(key));
    return scratch_;
  }

 private:
  template <class F>
  decltype(auto) field(F& f) {
    return std::invoke(f, *out_);
  }

  template <class T>
  static OptionSpec& sized(OptionSpec& s) {
    if constexpr (options_detail::Fixed<T>::value) s.size(static_cast<int>(options_detail::Fixed<T>::size));
    return s;
  }

  template <class T, class E, class A>
  static void copy_fixed(A& out, const std::vector<E>& v, const std::string& key) {
    using Fx = options_detail::Fixed<T>;
    static_assert(Fx::value && std::is_same_v<typename Fx::element, E>,
                  "list field: std::vector or a fixed-size array of the element type");
    if (v.size() != Fx::size) throw Error("deck: key '" + key + "' does not hold " + std::to_string(Fx::size) + " values");
    for (std::size_t i = 0; i < Fx::size; ++i) out[i] = v[i];
  }

  OptionRegistry* reg_ = nullptr;
  const Deck* deck_ = nullptr;
  P* out_ = nullptr;
  OptionSpec scratch_;  // what the chained setters change in reading mode
};

/// Declares the keys of P (P::bind(Options<P>&)).
template <class P>
void declare_options(OptionRegistry& reg) {
  Options<P> o(reg);
  P::bind(o);
}

/// A value-initialised P with every bound key read from `deck`.
template <class P>
P read_options(const Deck& deck) {
  P p{};
  Options<P> o(deck, p);
  P::bind(o);
  return p;
}

}  // namespace stratus
