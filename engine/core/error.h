// SPDX-License-Identifier: MIT
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace attn {

/// An error caused by input (a file, a config, a request), with the place it concerns.
/// Inside the engine it is thrown; at the engine boundary it becomes a Result (errors are values there).
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message)
        : std::runtime_error(message)
    {
    }
    /// "FILE: what" — every loader error names the file it is about.
    Error(const std::string& file, const std::string& what)
        : std::runtime_error(file + ": " + what)
    {
    }
};

/// Cancellation requested by the caller; distinct from failure.
class Cancelled : public std::runtime_error {
public:
    Cancelled()
        : std::runtime_error("cancelled")
    {
    }
};

/// A value or an error message: what engine entry points return to the CLI and the UI.
template <class T>
class Result {
public:
    Result(T value)
        : m_value(std::move(value))
    {
    }
    static Result failure(std::string message)
    {
        Result r;
        r.m_error = std::move(message);
        return r;
    }
    bool ok() const { return m_value.has_value(); }
    explicit operator bool() const { return ok(); }
    const std::string& error() const { return m_error; }
    T& value() { return *m_value; }
    const T& value() const { return *m_value; }
    T* operator->() { return &*m_value; }
    const T* operator->() const { return &*m_value; }

private:
    Result() = default;
    std::optional<T> m_value;
    std::string m_error;
};

/// Runs fn(), turning a thrown Error (or any std::exception) into a failed Result.
template <class Fn>
auto capture(Fn&& fn) -> Result<decltype(fn())>
{
    using T = decltype(fn());
    try {
        return Result<T>(fn());
    } catch (const std::exception& e) {
        return Result<T>::failure(e.what());
    }
}

} // namespace attn
