// SPDX-License-Identifier: MIT
#pragma once
// What every job on the engine thread works with (ARCHITECTURE.md decision 6): the one model registry, the backend
// chosen for the whole app, and the state tabs keep there between their requests. Owned by the engine thread; jobs
// are its only users, so nothing here locks (but the registry, which others may share).
#include "model/model.h"
#include "service/model_registry.h"

#include <any>
#include <map>
#include <memory>
#include <string>

namespace attn {

class Backend;

class EngineContext {
public:
    explicit EngineContext(ModelRegistry::Loader load = {})
        : m_models(std::move(load))
    {
    }

    ModelRegistry& models() { return m_models; }

    /// The backend every tab computes with; null until one is chosen (the CPU attention core).
    const std::shared_ptr<Backend>& backend() const { return m_backend; }
    void setBackend(std::shared_ptr<Backend> backend) { m_backend = std::move(backend); }
    /// Forward options that run on that backend.
    ForwardOptions forwardOptions() const
    {
        ForwardOptions options;
        options.backend = m_backend.get();
        return options;
    }

    /// The state a tab keeps under `key` (a decode timeline, a step-by-step translation), or null. Throws
    /// std::bad_any_cast when `key` holds another type (two tabs sharing a key is a bug).
    template <class T> std::shared_ptr<T> session(const std::string& key) const
    {
        const auto it = m_sessions.find(key);
        return it == m_sessions.end() ? nullptr : std::any_cast<std::shared_ptr<T>>(it->second);
    }
    template <class T> void setSession(const std::string& key, std::shared_ptr<T> state)
    {
        m_sessions[key] = std::move(state);
    }
    void dropSession(const std::string& key) { m_sessions.erase(key); }
    /// Frees every tab's state: done before another model is opened, so two models never sit in memory together.
    void dropSessions() { m_sessions.clear(); }

private:
    ModelRegistry m_models;
    std::shared_ptr<Backend> m_backend;
    std::map<std::string, std::any> m_sessions;
};

} // namespace attn
