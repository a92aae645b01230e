// SPDX-License-Identifier: MIT
#include "core/npy.h"

#include "core/error.h"

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

namespace attn {
namespace {

struct NpyHeader {
    std::string descr;
    Shape shape;
    bool fortranOrder = false;
    std::vector<char> payload;
};

NpyHeader readHeader(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path, "cannot open file");
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
        throw Error(path, "not a .npy file (bad magic)");
    const int major = static_cast<unsigned char>(bytes[6]);
    size_t headerLen = 0;
    size_t pos = 0;
    if (major == 1) {
        headerLen
            = static_cast<unsigned char>(bytes[8]) | (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
        pos = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) throw Error(path, "truncated .npy header");
        for (int i = 0; i < 4; ++i)
            headerLen |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
        pos = 12;
    } else {
        throw Error(path, "unsupported .npy version " + std::to_string(major));
    }
    if (pos + headerLen > bytes.size()) throw Error(path, "truncated .npy header");
    const std::string header(bytes.data() + pos, headerLen);
    std::smatch m;
    NpyHeader h;
    if (!std::regex_search(header, m, std::regex("'descr'\\s*:\\s*'([^']+)'")))
        throw Error(path, "npy header has no descr");
    h.descr = m[1];
    if (!std::regex_search(header, m, std::regex("'fortran_order'\\s*:\\s*(True|False)")))
        throw Error(path, "npy header has no fortran_order");
    h.fortranOrder = m[1] == "True";
    if (!std::regex_search(header, m, std::regex("'shape'\\s*:\\s*\\(([^)]*)\\)")))
        throw Error(path, "npy header has no shape");
    std::stringstream dims(m[1].str());
    std::string item;
    while (std::getline(dims, item, ',')) {
        if (item.find_first_not_of(" ") == std::string::npos) continue;
        h.shape.push_back(std::stoll(item));
    }
    h.payload.assign(bytes.begin() + static_cast<std::ptrdiff_t>(pos + headerLen), bytes.end());
    return h;
}

template <class T> std::vector<T> payloadAs(const NpyHeader& h, const std::string& path)
{
    const size_t n = static_cast<size_t>(shapeNumel(h.shape));
    if (h.payload.size() < n * sizeof(T))
        throw Error(path,
            "truncated .npy data: need " + std::to_string(n * sizeof(T)) + " bytes, have "
                + std::to_string(h.payload.size()));
    std::vector<T> stored(n);
    std::memcpy(stored.data(), h.payload.data(), n * sizeof(T));
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
