// SPDX-License-Identifier: MIT
#pragma once
// A minimal GGUF v3 writer for tests: uint32 / float32 / string keys, float32 tensors and tensors of any ggml type
// given as their raw blocks; alignment 32, as ggml's gguf_write_to_file lays a file out.
#include "core/tensor.h"
#include "quant/ggml_type.h"

#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace attn::test {

class GgufWriter {
public:
    void u32(const std::string& key, uint32_t v) { keyValue(key, 4, &v, 4); }
    void f32(const std::string& key, float v) { keyValue(key, 6, &v, 4); }
    void string(const std::string& key, const std::string& v)
    {
        text(m_kv, key);
        pod(m_kv, uint32_t(8));
        text(m_kv, v);
        ++m_kvCount;
    }
    void tensor(const std::string& name, const Tensor& t)
    {
        raw(name, GgmlType::F32, t.shape(),
            std::string(reinterpret_cast<const char*>(t.data()), static_cast<size_t>(t.numel()) * 4));
    }
    /// A tensor of PyTorch shape `shape` stored as `type`: `bytes` are its rows' blocks as ggml lays them out.
    void raw(const std::string& name, GgmlType type, const Shape& shape, std::string bytes)
    {
        m_tensors.push_back({ name, type, shape, std::move(bytes) });
    }
    void save(const std::string& path) const
    {
        std::string out = "GGUF";
        pod(out, uint32_t(3));
        pod(out, static_cast<uint64_t>(m_tensors.size()));
        pod(out, m_kvCount);
        out += m_kv;
        std::string data;
        for (const Entry& t : m_tensors) {
            text(out, t.name);
            pod(out, static_cast<uint32_t>(t.shape.size()));
            for (auto d = t.shape.rbegin(); d != t.shape.rend(); ++d)
                pod(out, static_cast<uint64_t>(*d)); // ne: reversed
            pod(out, static_cast<uint32_t>(t.type));
            pod(out, static_cast<uint64_t>(data.size()));
            data += t.bytes;
            data.append((32 - data.size() % 32) % 32, '\0');
        }
        out.append((32 - out.size() % 32) % 32, '\0');
        std::ofstream(path, std::ios::binary) << out << data;
    }

private:
    struct Entry {
        std::string name;
        GgmlType type;
        Shape shape;
        std::string bytes;
    };
    template <class T> static void pod(std::string& out, T v)
    {
        out.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    static void text(std::string& out, const std::string& s)
    {
        pod(out, static_cast<uint64_t>(s.size()));
        out += s;
    }
    void keyValue(const std::string& key, uint32_t type, const void* v, size_t bytes)
    {
        text(m_kv, key);
        pod(m_kv, type);
        m_kv.append(static_cast<const char*>(v), bytes);
        ++m_kvCount;
    }
    std::string m_kv;
    uint64_t m_kvCount = 0;
    std::vector<Entry> m_tensors;
};

} // namespace attn::test
