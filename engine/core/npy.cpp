// SPDX-License-Identifier: MIT
#include "core/npy.h"

#include "core/checked.h"
#include "core/error.h"
#include "core/input_file.h"
#include "core/mapped_file.h"

#include <cstring>
#include <fstream>
#include <memory>
#include <string_view>

namespace attn {
namespace {

struct NpyHeader {
    std::unique_ptr<MappedFile> file;
    std::string descr;
    Shape shape;
    bool fortranOrder = false;
    const uint8_t* payload = nullptr;
    size_t payloadBytes = 0;
};

/// A hand-written scanner over the header's Python dict literal (no std::regex: its recursion overflows the stack on
/// long values). Each field is found by its quoted key; errors name the file.
class HeaderScanner {
public:
    HeaderScanner(std::string_view text, const std::string& path)
        : m_text(text)
        , m_path(path)
    {
    }

    std::string_view stringField(const char* key) const
    {
        size_t at = valueStart(key);
        if (at >= m_text.size() || (m_text[at] != '\'' && m_text[at] != '"'))
            throw Error(m_path, std::string("npy header field '") + key + "' is not a quoted string");
        const size_t close = m_text.find(m_text[at], at + 1);
        if (close == std::string_view::npos || close == at + 1)
            throw Error(m_path, std::string("npy header field '") + key + "' is not a quoted string");
        return m_text.substr(at + 1, close - at - 1);
    }

    bool boolField(const char* key) const
    {
        const std::string_view rest = m_text.substr(valueStart(key));
        if (rest.substr(0, 4) == "True") return true;
        if (rest.substr(0, 5) == "False") return false;
        throw Error(m_path, std::string("npy header field '") + key + "' is not True or False");
    }

    /// "(d0, d1, ...)" with an optional trailing comma; every dimension a non-negative decimal integer.
    Shape shapeField(const char* key) const
    {
        size_t at = valueStart(key);
        if (at >= m_text.size() || m_text[at] != '(') throw Error(m_path, "npy header 'shape' is not a tuple");
        const size_t close = m_text.find(')', at);
        if (close == std::string_view::npos) throw Error(m_path, "npy header 'shape' is not a closed tuple");
        Shape shape;
        std::string_view items = m_text.substr(at + 1, close - at - 1);
        while (!items.empty()) {
            const size_t comma = items.find(',');
            const std::string_view item = trimmed(items.substr(0, comma));
            items = comma == std::string_view::npos ? std::string_view() : items.substr(comma + 1);
            if (item.empty() && items.empty() && !shape.empty()) break; // "(3,)"
            if (shape.size() == kMaxDims) throw Error(m_path, "npy shape has more than 64 dimensions");
            shape.push_back(dimension(item));
        }
        return shape;
    }

private:
    static constexpr size_t kMaxDims = 64; // NumPy 2's NPY_MAXDIMS

    static std::string_view trimmed(std::string_view s)
    {
        const size_t b = s.find_first_not_of(" \t");
        if (b == std::string_view::npos) return {};
        return s.substr(b, s.find_last_not_of(" \t") - b + 1);
    }

    /// Where the value of 'key' begins (after the colon and spaces).
    size_t valueStart(const char* key) const
    {
        const std::string quoted = std::string("'") + key + "'";
        size_t at = m_text.find(quoted);
        if (at == std::string_view::npos) throw Error(m_path, std::string("npy header has no ") + key);
        at = m_text.find_first_not_of(" \t", at + quoted.size());
        if (at == std::string_view::npos || m_text[at] != ':')
            throw Error(m_path, std::string("npy header field '") + key + "' has no value");
        at = m_text.find_first_not_of(" \t", at + 1);
        return at == std::string_view::npos ? m_text.size() : at;
    }

    int64_t dimension(std::string_view item) const
    {
        const std::string quoted = "'" + std::string(item.substr(0, 20)) + (item.size() > 20 ? "...'" : "'");
        if (!item.empty() && item[0] == '-') throw Error(m_path, "npy shape has the negative dimension " + quoted);
        if (item.empty() || item.find_first_not_of("0123456789") != std::string_view::npos)
            throw Error(m_path, "npy shape has the dimension " + quoted + ", not a non-negative integer");
        int64_t v = 0;
        for (const char ch : item) {
            const auto next = checkedAdd(checkedMul(v, 10).value_or(-1), ch - '0');
            if (!next) throw Error(m_path, "npy shape dimension " + quoted + " does not fit in 64 bits");
            v = *next;
        }
        return v;
    }

    std::string_view m_text;
    const std::string& m_path;
};

NpyHeader readHeader(const std::string& path)
{
    NpyHeader h;
    requireRegularFile(path, file_caps::kArray, ".npy array");
    h.file = std::make_unique<MappedFile>(path);
    const auto* bytes = h.file->data();
    const size_t size = h.file->size();
    if (size < 10 || std::memcmp(bytes, "\x93NUMPY", 6) != 0) throw Error(path, "not a .npy file (bad magic)");
    const int major = bytes[6];
    size_t headerLen = 0;
    size_t pos = 0;
    if (major == 1) {
        headerLen = bytes[8] | (static_cast<size_t>(bytes[9]) << 8);
        pos = 10;
    } else if (major == 2 || major == 3) {
        if (size < 12) throw Error(path, "truncated .npy header");
        for (int i = 0; i < 4; ++i)
            headerLen |= static_cast<size_t>(bytes[8 + i]) << (8 * i);
        pos = 12;
    } else {
        throw Error(path, "unsupported .npy version " + std::to_string(major));
    }
    if (headerLen > size - pos) throw Error(path, "truncated .npy header");
    const HeaderScanner scan(std::string_view(reinterpret_cast<const char*>(bytes) + pos, headerLen), path);
    const std::string_view descr = scan.stringField("descr");
    h.descr = descr.size() > 20 ? std::string(descr.substr(0, 20)) + "..." : std::string(descr);
    h.fortranOrder = scan.boolField("fortran_order");
    h.shape = scan.shapeField("shape");
    h.payload = bytes + pos + headerLen;
    h.payloadBytes = size - pos - headerLen;
    return h;
}

template <class T> std::vector<T> payloadAs(const NpyHeader& h, const std::string& path)
{
    const int64_t need = shapeBytes(h.shape, sizeof(T), path);
    if (h.payloadBytes < static_cast<uint64_t>(need))
        throw Error(path,
            "truncated .npy data: shape " + shapeToString(h.shape) + " needs " + std::to_string(need) + " bytes, have "
                + std::to_string(h.payloadBytes));
    const size_t n = static_cast<size_t>(need) / sizeof(T);
    std::vector<T> stored(n);
    if (n) std::memcpy(stored.data(), h.payload, n * sizeof(T));
    if (!h.fortranOrder || h.shape.size() < 2) return stored;
    // Fortran order stores the first index fastest; walk the stored elements in that order and place each at its
    // C-order offset.
    const size_t rank = h.shape.size();
    std::vector<size_t> stride(rank, 1);
    for (size_t d = rank - 1; d-- > 0;)
        stride[d] = stride[d + 1] * static_cast<size_t>(h.shape[d + 1]);
    std::vector<T> out(n);
    std::vector<int64_t> index(rank, 0);
    size_t offset = 0;
    for (size_t f = 0; f < n; ++f) {
        out[offset] = stored[f];
        for (size_t d = 0; d < rank; ++d) {
            offset += stride[d];
            if (++index[d] < h.shape[d]) break;
            offset -= stride[d] * static_cast<size_t>(h.shape[d]);
            index[d] = 0;
        }
    }
    return out;
}

/// Magic, version 1.0, length and the padded dictionary.
std::string npyHeader(const std::string& descr, const Shape& shape)
{
    std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
    for (size_t i = 0; i < shape.size(); ++i)
        dict += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "");
    dict += "), }";
    // Total header (magic + len + dict + newline) is padded to a multiple of 64 bytes.
    const size_t total = 10 + dict.size() + 1;
    dict.append((64 - total % 64) % 64, ' ');
    dict += '\n';
    const uint16_t len = static_cast<uint16_t>(dict.size());
    const char lenBytes[2] = { static_cast<char>(len & 0xff), static_cast<char>(len >> 8) };
    return std::string("\x93NUMPY\x01\x00", 8) + std::string(lenBytes, 2) + dict;
}

void writeRaw(const std::string& path, const std::string& descr, const Shape& shape, const void* data, size_t bytes)
{
    std::ofstream out(path, std::ios::binary);
    if (!out) throw Error(path, "cannot open for writing");
    const std::string header = npyHeader(descr, shape);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
    if (!out) throw Error(path, "write failed");
}

} // namespace

Tensor readNpy(const std::string& path)
{
    NpyHeader h = readHeader(path);
    if (h.descr == "<f4") return Tensor(h.shape, payloadAs<float>(h, path));
    if (h.descr == "<f8") {
        auto d = payloadAs<double>(h, path);
        return Tensor(h.shape, std::vector<float>(d.begin(), d.end()));
    }
    throw Error(path, "expected a float32/float64 array, found dtype " + h.descr);
}

std::vector<int64_t> readNpyInts(const std::string& path, Shape* shape)
{
    NpyHeader h = readHeader(path);
    if (shape) *shape = h.shape;
    if (h.descr == "<i8") return payloadAs<int64_t>(h, path);
    if (h.descr == "<i4") {
        auto d = payloadAs<int32_t>(h, path);
        return std::vector<int64_t>(d.begin(), d.end());
    }
    throw Error(path, "expected an int64/int32 array, found dtype " + h.descr);
}

void writeNpy(const std::string& path, const Tensor& tensor)
{
    writeRaw(path, "<f4", tensor.shape(), tensor.data(), static_cast<size_t>(tensor.numel()) * sizeof(float));
}

void writeNpyInts(const std::string& path, const std::vector<int64_t>& values, const Shape& shape)
{
    if (shapeNumel(shape) != static_cast<int64_t>(values.size()))
        throw Error(
            path, "shape " + shapeToString(shape) + " does not match " + std::to_string(values.size()) + " values");
    writeRaw(path, "<i8", shape, values.data(), values.size() * sizeof(int64_t));
}

NpyFloatWriter::NpyFloatWriter(const std::string& path, const Shape& shape)
    : m_path(path)
    , m_out(path, std::ios::binary)
    , m_left(shapeNumel(shape))
{
    if (!m_out) throw Error(path, "cannot open for writing");
    const std::string header = npyHeader("<f4", shape);
    m_out.write(header.data(), static_cast<std::streamsize>(header.size()));
}

void NpyFloatWriter::write(const float* data, int64_t count)
{
    if (count < 0 || count > m_left) throw Error(m_path, "more data than the array's shape holds");
    m_out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(count * sizeof(float)));
    if (!m_out) throw Error(m_path, "write failed (disk full?)");
    m_left -= count;
}

void NpyFloatWriter::finish()
{
    if (m_left != 0) throw Error(m_path, std::to_string(m_left) + " values of the array were never written");
    m_out.close();
    if (!m_out) throw Error(m_path, "write failed");
}

uint64_t NpyFloatWriter::fileBytes(const Shape& shape)
{
    return npyHeader("<f4", shape).size() + static_cast<uint64_t>(shapeNumel(shape)) * sizeof(float);
}

} // namespace attn
