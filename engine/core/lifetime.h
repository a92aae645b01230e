// SPDX-License-Identifier: MIT
#pragma once
// A token whose expiry tells caches that the object holding it is gone: a backend keeps device copies of a model's
// weights or of a KV cache only while the owner's token lives. Copies get a fresh token (they are other objects);
// a move hands the token over, as the moved data keeps its addresses.
#include <memory>
#include <utility>

namespace attn {

class LifetimeToken {
public:
    LifetimeToken() = default;
    LifetimeToken(const LifetimeToken&) { }
    LifetimeToken& operator=(const LifetimeToken&)
    {
        m_alive = std::make_shared<char>();
        return *this;
    }
    LifetimeToken(LifetimeToken&& other) noexcept
        : m_alive(std::exchange(other.m_alive, nullptr))
    {
    }
    LifetimeToken& operator=(LifetimeToken&& other) noexcept
    {
        m_alive = std::exchange(other.m_alive, nullptr);
        return *this;
    }

    /// Expires when this object is destroyed, assigned over or moved from.
    std::weak_ptr<const void> watch() const { return m_alive; }

private:
    std::shared_ptr<const void> m_alive = std::make_shared<char>();
};

} // namespace attn
