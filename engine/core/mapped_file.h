// SPDX-License-Identifier: MIT
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace attn {

/// A read-only memory-mapped file (weights are read straight from the page cache).
class MappedFile {
public:
    explicit MappedFile(const std::string& path); ///< throws Error naming the file
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const uint8_t* data() const { return m_data; }
    size_t size() const { return m_size; }
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
    const uint8_t* m_data = nullptr;
    size_t m_size = 0;
};

} // namespace attn
