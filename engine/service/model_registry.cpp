// SPDX-License-Identifier: MIT
#include "service/model_registry.h"

#include "model/model_loader.h"

#include <filesystem>

namespace attn {

namespace {

/// What decides the weights a load produces: the files, and the one config field a caller changes (long inputs
/// raise the position limit of rotary models, which changes the RoPE tables).
std::string keyOf(const ModelSource& s)
{
    std::error_code ec;
    const auto canonical = [&ec](const std::string& p) {
        if (p.empty()) return std::string();
        const auto c = std::filesystem::weakly_canonical(p, ec);
        return ec ? p : c.string();
    };
    return std::to_string(static_cast<int>(s.format)) + '\n' + canonical(s.weightsPath) + '\n'
        + canonical(s.configPath) + '\n' + canonical(s.folder) + '\n' + std::to_string(s.config.maxPositions);
}

} // namespace

ModelRegistry::ModelRegistry(Loader load)
    : m_load(load ? std::move(load)
                  : Loader([](const ModelSource& source) -> std::shared_ptr<const Model> { return loadModel(source); }))
{
}

std::shared_ptr<const Model> ModelRegistry::model(const ModelSource& source)
{
    const std::string key = keyOf(source);
    const std::lock_guard<std::mutex> lock(m_mutex);
    if (auto held = m_models[key].lock()) return held;
    // Entries of freed models are dropped here, so the map never outgrows the models a session opened.
    for (auto it = m_models.begin(); it != m_models.end();)
        it = it->second.expired() && it->first != key ? m_models.erase(it) : std::next(it);
    auto loaded = m_load(source);
    ++m_loads;
    m_models[key] = loaded;
    return loaded;
}

std::shared_ptr<const Model> ModelRegistry::held(const ModelSource& source) const
{
    const std::string key = keyOf(source);
    const std::lock_guard<std::mutex> lock(m_mutex);
    const auto it = m_models.find(key);
    return it == m_models.end() ? nullptr : it->second.lock();
}

uint64_t ModelRegistry::loads() const
{
    const std::lock_guard<std::mutex> lock(m_mutex);
    return m_loads;
}

} // namespace attn
