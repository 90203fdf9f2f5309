// Result<T> and Status: how tilelens libraries return errors. Libraries never print or exit;
// they hand back a message a user can act on (naming the file, line, field or argument), and
// only app/ decides what to do with it.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace tilelens {

struct Error {
  std::string message;
  // The field of a request the message is about ("memory-model", "workload": core's request
  // fields, named as the CLI's options without their dashes), or "" when it is about none. The
  // message then says what is wrong with the field's value without naming it: each front end
  // words it, the CLI as its option (--memory-model: ...), the app as its form's label.
  std::string field;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), failed_(true) {}  // NOLINT(google-explicit-constructor)
  static Status success() { return {}; }

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool failed_ = false;
};

inline Error make_error(std::string message) { return Error{std::move(message), {}}; }
inline Error field_error(std::string field, std::string message) { return Error{std::move(message), std::move(field)}; }

}  // namespace tilelens
