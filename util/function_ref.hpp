// A non-owning reference to a callable, for a hot callback that must not allocate nor copy:
// it refers to an object that outlives it (an lvalue; a temporary is refused at compile time).
#pragma once

#include <type_traits>

namespace tilelens {

template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  FunctionRef() = default;
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> && std::is_invocable_r_v<R, F&, Args...>)
  FunctionRef(F& callable)  // NOLINT(google-explicit-constructor)
      : object_(const_cast<void*>(static_cast<const void*>(&callable))),
        call_([](void* object, Args... args) -> R { return (*static_cast<F*>(object))(static_cast<Args>(args)...); }) {}
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> && !std::is_lvalue_reference_v<F>)
  FunctionRef(F&& temporary) = delete;  // it would dangle

  R operator()(Args... args) const { return call_(object_, static_cast<Args>(args)...); }
  explicit operator bool() const { return call_ != nullptr; }

 private:
  void* object_ = nullptr;
  R (*call_)(void*, Args...) = nullptr;
};

}  // namespace tilelens
