// SPDX-License-Identifier: MIT
#pragma once
// A small least-recently-used cache of immutable values, bounded in bytes (the tiles and overviews a view asked for
// lately, so panning back and forth or switching between two heads costs nothing).
#include <cstddef>
#include <list>
#include <map>
#include <memory>
#include <utility>

namespace attn {

template <typename Key, typename Value> class LruCache {
public:
    explicit LruCache(size_t budgetBytes)
        : m_budget(budgetBytes)
    {
    }

    /// The cached value (now the most recent), or null.
    std::shared_ptr<const Value> find(const Key& key)
    {
        const auto it = m_index.find(key);
        if (it == m_index.end()) return nullptr;
        m_order.splice(m_order.begin(), m_order, it->second);
        return it->second->value;
    }

    /// Adds `value` of `bytes` as the most recent entry, then drops the oldest entries over the budget (a value larger
    /// than the whole budget is returned but not kept).
    void insert(const Key& key, std::shared_ptr<const Value> value, size_t bytes)
    {
        if (const auto it = m_index.find(key); it != m_index.end()) erase(it);
        m_order.push_front(Entry { key, std::move(value), bytes });
        m_index.emplace(key, m_order.begin());
        m_bytes += bytes;
        while (m_bytes > m_budget && !m_order.empty())
            erase(m_index.find(m_order.back().key));
    }

    size_t bytes() const { return m_bytes; }
    size_t size() const { return m_order.size(); }

private:
    struct Entry {
        Key key;
        std::shared_ptr<const Value> value;
        size_t bytes;
    };
    using Order = std::list<Entry>;

    void erase(typename std::map<Key, typename Order::iterator>::iterator it)
    {
        m_bytes -= it->second->bytes;
        m_order.erase(it->second);
        m_index.erase(it);
    }

    size_t m_budget;
    size_t m_bytes = 0;
    Order m_order;
    std::map<Key, typename Order::iterator> m_index;
};

} // namespace attn
