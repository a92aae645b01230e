// SPDX-License-Identifier: MIT
#pragma once
// ARCHITECTURE.md decision 6: one copy of each model. Every tab's engine work asks the registry, so the main views,
// Decode and Alignment share the weights that one load produced.
#include "model/model.h"
#include "model/model_source.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace attn {

class ModelRegistry {
public:
    using Loader = std::function<std::shared_ptr<const Model>(const ModelSource&)>;

    /// `load` builds a model the first time (loadModel by default; tests count or script it).
    explicit ModelRegistry(Loader load = {});

    /// The model of `source`: the copy someone still holds when there is one (same files and the same position
    /// limit), else a new load. The registry keeps no model alive by itself: the last holder to let go frees it.
    /// Throws what the loader throws (Error naming the file).
    std::shared_ptr<const Model> model(const ModelSource& source);
    /// The copy of `source` someone holds now, or null: never loads (a job that reads the open model, and must not
    /// bring back one that was closed meanwhile).
    std::shared_ptr<const Model> held(const ModelSource& source) const;
    /// How many times the loader ran (a test of "one load per file").
    uint64_t loads() const;

private:
    Loader m_load;
    mutable std::mutex m_mutex;
    std::map<std::string, std::weak_ptr<const Model>> m_models;
    uint64_t m_loads = 0;
};

} // namespace attn
