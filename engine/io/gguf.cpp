// SPDX-License-Identifier: MIT
#include "io/gguf.h"

#include "core/error.h"

#include <cstring>
#include <fstream>

namespace attn {
namespace {

constexpr uint32_t kMagic = 0x46554747; // "GGUF" read as a little-endian uint32
constexpr int kMaxDims = 4; // GGML_MAX_DIMS
constexpr int kMaxArrayNesting = 8; // real files nest at most once; deeper is an attack on the stack
// A parsed element takes far more memory than its bytes in the file (a one-byte uint8 becomes a GgufValue), so counts
// are also capped absolutely: vocabularies and merge lists have a few hundred thousand entries, models a few thousand
// tensors.
constexpr uint64_t kMaxArrayElements = uint64_t(1) << 24;
constexpr uint64_t kMaxTensors = uint64_t(1) << 20;

uint64_t checkedMul(uint64_t a, uint64_t b, const std::string& path, const std::string& what)
{
    uint64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) throw Error(path, what + " overflows 64 bits");
    return r;
}

uint64_t checkedAdd(uint64_t a, uint64_t b, const std::string& path, const std::string& what)
{
    uint64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) throw Error(path, what + " overflows 64 bits");
    return r;
}

/// Reads little-endian fields from the mapping; every read is checked against the end of the file.
class Cursor {
public:
    explicit Cursor(const MappedFile& file)
        : m_file(file)
    {
    }
    uint64_t position() const { return m_pos; }
    uint64_t remaining() const { return m_file.size() - m_pos; }

    template <class T> T read(const std::string& what)
    {
        need(sizeof(T), what);
        T v;
        std::memcpy(&v, m_file.data() + m_pos, sizeof(T));
        m_pos += sizeof(T);
        return v;
    }
    std::string string(const std::string& what)
    {
        // The descriptions are built only when a read fails: this runs for every string of a vocabulary.
        if (remaining() < sizeof(uint64_t)) truncated("the length of " + what);
        const auto length = read<uint64_t>(what);
        if (length > remaining()) truncated(what + " (" + std::to_string(length) + " bytes)");
        std::string s(reinterpret_cast<const char*>(m_file.data() + m_pos), static_cast<size_t>(length));
        m_pos += length;
        return s;
    }
    /// A count of items that each take at least `minBytes`: more than the rest of the file can hold is a lie, refused
    /// before anything is allocated for them.
    uint64_t count(uint64_t minBytes, uint64_t limit, const std::string& what)
    {
        const auto n = read<uint64_t>(what);
        if (n > limit)
            throw Error(m_file.path(),
                what + " is " + std::to_string(n) + ", more than the " + std::to_string(limit)
                    + " this reader accepts");
        if (minBytes > 0 && n > remaining() / minBytes)
            throw Error(m_file.path(),
                what + " is " + std::to_string(n) + ", more than the remaining " + std::to_string(remaining())
                    + " bytes of the file can hold (truncated or corrupt GGUF)");
        return n;
    }

private:
    void need(uint64_t bytes, const std::string& what) const
    {
        if (bytes > remaining()) truncated(what);
    }
    [[noreturn]] void truncated(const std::string& what) const
    {
        throw Error(m_file.path(),
            "truncated: the file ends at byte " + std::to_string(m_file.size()) + " inside " + what + " (at byte "
                + std::to_string(m_pos) + ")");
    }
    const MappedFile& m_file;
    uint64_t m_pos = 0;
};

/// The smallest encoding of one value of `type` (what an array element takes at least).
uint64_t minValueBytes(GgufValueType type)
{
    switch (type) {
    case GgufValueType::Uint8:
    case GgufValueType::Int8:
    case GgufValueType::Bool:
        return 1;
    case GgufValueType::Uint16:
    case GgufValueType::Int16:
        return 2;
    case GgufValueType::Uint32:
    case GgufValueType::Int32:
    case GgufValueType::Float32:
        return 4;
    case GgufValueType::String:
    case GgufValueType::Uint64:
    case GgufValueType::Int64:
    case GgufValueType::Float64:
        return 8;
    case GgufValueType::Array:
        return 12; // element type + count
    }
    return 0;
}

bool knownValueType(uint32_t t)
{
    return t <= static_cast<uint32_t>(GgufValueType::Float64);
}

/// What messages call one metadata value and its parts, built once per key: every element of an array (a vocabulary
/// of 50,000 strings) shares them, so reading costs no copy of the key per element.
struct ValueText {
    explicit ValueText(const std::string& k)
        : key(k)
        , value("the value of '" + k + "'")
        , elementType("the element type of '" + k + "'")
        , count("the element count of '" + k + "'")
    {
    }
    const std::string& key;
    const std::string value, elementType, count;
};

GgufValue readValue(Cursor& in, GgufValueType type, const std::string& path, const ValueText& text, int depth)
{
    GgufValue v;
    v.type = type;
    const std::string& key = text.key;
    const std::string& what = text.value;
    switch (type) {
    case GgufValueType::Uint8:
        v.data = static_cast<uint64_t>(in.read<uint8_t>(what));
        break;
    case GgufValueType::Int8:
        v.data = static_cast<int64_t>(in.read<int8_t>(what));
        break;
    case GgufValueType::Uint16:
        v.data = static_cast<uint64_t>(in.read<uint16_t>(what));
        break;
    case GgufValueType::Int16:
        v.data = static_cast<int64_t>(in.read<int16_t>(what));
        break;
    case GgufValueType::Uint32:
        v.data = static_cast<uint64_t>(in.read<uint32_t>(what));
        break;
    case GgufValueType::Int32:
        v.data = static_cast<int64_t>(in.read<int32_t>(what));
        break;
    case GgufValueType::Uint64:
        v.data = in.read<uint64_t>(what);
        break;
    case GgufValueType::Int64:
        v.data = in.read<int64_t>(what);
        break;
    case GgufValueType::Float32:
        v.data = static_cast<double>(in.read<float>(what));
        break;
    case GgufValueType::Float64:
        v.data = in.read<double>(what);
        break;
    case GgufValueType::Bool: {
        const auto b = in.read<uint8_t>(what);
        if (b > 1) throw Error(path, "key '" + key + "': bool value " + std::to_string(b) + " is neither 0 nor 1");
        v.data = b == 1;
        break;
    }
    case GgufValueType::String:
        v.data = in.string(what);
        break;
    case GgufValueType::Array: {
        if (depth >= kMaxArrayNesting)
            throw Error(path, "key '" + key + "': arrays nested deeper than " + std::to_string(kMaxArrayNesting));
        const auto elem = in.read<uint32_t>(text.elementType);
        if (!knownValueType(elem))
            throw Error(path, "key '" + key + "': unknown array element type " + std::to_string(elem));
        v.elementType = static_cast<GgufValueType>(elem);
        const uint64_t n = in.count(minValueBytes(v.elementType), kMaxArrayElements, text.count);
        std::vector<GgufValue> items;
        items.reserve(static_cast<size_t>(n));
        for (uint64_t i = 0; i < n; ++i)
            items.push_back(readValue(in, v.elementType, path, text, depth + 1));
        v.data = std::move(items);
        break;
    }
    }
    return v;
}

} // namespace

const char* ggufValueTypeName(GgufValueType type)
{
    static constexpr const char* names[] = { "uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool",
        "string", "array", "uint64", "int64", "float64" };
    return names[static_cast<uint32_t>(type)];
}

std::optional<int64_t> GgufValue::asInt() const
{
    if (const auto* i = std::get_if<int64_t>(&data)) return *i;
    if (const auto* u = std::get_if<uint64_t>(&data); u && *u <= static_cast<uint64_t>(INT64_MAX))
        return static_cast<int64_t>(*u);
    return std::nullopt;
}

std::optional<double> GgufValue::asFloat() const
{
    if (const auto* d = std::get_if<double>(&data)) return *d;
    return std::nullopt;
}

const std::string* GgufValue::asString() const
{
    return std::get_if<std::string>(&data);
}
const std::vector<GgufValue>* GgufValue::asArray() const
{
    return std::get_if<std::vector<GgufValue>>(&data);
}
const bool* GgufValue::asBool() const
{
    return std::get_if<bool>(&data);
}

int64_t GgufTensorInfo::rows() const
{
    int64_t r = 1;
    for (size_t i = 1; i < ne.size(); ++i)
        r *= ne[i]; // at most INT64_MAX: checked when parsed
    return r;
}

std::vector<int64_t> GgufTensorInfo::torchShape() const
{
    return { ne.rbegin(), ne.rend() };
}

uint64_t GgufFile::residentBytesToLoad() const
{
    uint64_t bytes = m_file->size();
    for (const GgufTensorInfo& t : m_tensors)
        if (t.ne.size() <= 1)
            bytes = checkedAdd(bytes, checkedMul(sizeof(float), static_cast<uint64_t>(t.numel()), path(), "the float32 size of " + t.name),
                path(), "the resident size");
    return bytes;
}

GgufFile::GgufFile(const std::string& path)
    : m_file(std::make_shared<const MappedFile>(path))
{
    parse();
}

void GgufFile::parse()
{
    const std::string& file = m_file->path();
    Cursor in(*m_file);
    const auto magic = in.read<uint32_t>("the GGUF magic");
    if (magic != kMagic) throw Error(file, "not a GGUF file (it does not start with \"GGUF\")");
    m_version = in.read<uint32_t>("the GGUF version");
    if (m_version == 1)
        throw Error(file, "GGUF version 1 (llama.cpp before August 2023) is not supported; convert it again");
    if (m_version != 2 && m_version != 3) {
        if (__builtin_bswap32(m_version) == 2 || __builtin_bswap32(m_version) == 3)
            throw Error(file, "a big-endian GGUF file; only little-endian GGUF is supported");
        throw Error(file, "GGUF version " + std::to_string(m_version) + " is not supported (2 and 3 are)");
    }
    // Smallest tensor info: name length (8), n_dims (4), one ne (8), type (4), offset (8); smallest key/value:
    // key length (8), value type (4), a one-byte value.
    const uint64_t tensorCount = in.count(0, kMaxTensors, "the tensor count"); // its room is checked below
    const uint64_t kvCount = in.count(13, kMaxArrayElements, "the metadata key count");
    if (tensorCount > in.remaining() / 32)
        throw Error(file,
            "the tensor count is " + std::to_string(tensorCount) + ", more than the remaining "
                + std::to_string(in.remaining()) + " bytes of the file can hold (truncated or corrupt GGUF)");

    m_kv.reserve(static_cast<size_t>(kvCount));
    for (uint64_t i = 0; i < kvCount; ++i) {
        std::string key = in.string("the name of metadata key " + std::to_string(i));
        const auto type = in.read<uint32_t>("the value type of '" + key + "'");
        if (!knownValueType(type))
            throw Error(file, "key '" + key + "' has unknown value type " + std::to_string(type));
        GgufValue value = readValue(in, static_cast<GgufValueType>(type), file, ValueText(key), 0);
        if (!m_kvIndex.emplace(key, m_kv.size()).second) throw Error(file, "duplicate metadata key '" + key + "'");
        m_kv.emplace_back(std::move(key), std::move(value));
    }
    if (const GgufValue* a = find("general.alignment")) {
        const auto align = a->asInt();
        if (a->type != GgufValueType::Uint32 || !align || *align == 0 || (*align & (*align - 1)) != 0)
            throw Error(file, "general.alignment must be a uint32 power of two");
        m_alignment = static_cast<uint64_t>(*align);
    }

    m_tensors.reserve(static_cast<size_t>(tensorCount));
    for (uint64_t i = 0; i < tensorCount; ++i) {
        GgufTensorInfo t;
        t.name = in.string("the name of tensor " + std::to_string(i));
        const std::string about = "tensor '" + t.name + "'";
        const auto dims = in.read<uint32_t>("the dimension count of " + about);
        if (dims < 1 || dims > kMaxDims)
            throw Error(file, about + " has " + std::to_string(dims) + " dimensions (1 to 4 are possible)");
        uint64_t numel = 1, rows = 1;
        for (uint32_t d = 0; d < dims; ++d) {
            const auto n = in.read<uint64_t>("the shape of " + about);
            if (n > static_cast<uint64_t>(INT64_MAX)) throw Error(file, about + " has a negative dimension");
            numel = checkedMul(numel, n, file, "the element count of " + about);
            // Checked on its own: rows of length 0 make every element count 0, whatever the row count.
            if (d > 0) rows = checkedMul(rows, n, file, "the row count of " + about);
            t.ne.push_back(static_cast<int64_t>(n));
        }
        if (rows > static_cast<uint64_t>(INT64_MAX)) throw Error(file, "the row count of " + about + " is too large");
        if (numel > static_cast<uint64_t>(INT64_MAX))
            throw Error(file, "the element count of " + about + " is too large");
        const auto typeNumber = in.read<uint32_t>("the type of " + about);
        const GgmlTypeTraits* traits = findGgmlType(typeNumber);
        if (!traits)
            throw Error(file,
                about + " has type " + ggmlTypeNumberName(typeNumber) + ", which this build cannot read (it reads "
                    + readableGgmlTypes() + ")");
        t.type = traits->type;
        if (t.ne[0] % traits->blockSize != 0)
            throw Error(file,
                about + ": its row length " + std::to_string(t.ne[0]) + " is not a multiple of the "
                    + std::to_string(traits->blockSize) + "-element blocks of " + traits->name);
        const uint64_t blocks = static_cast<uint64_t>(t.ne[0] / traits->blockSize);
        // Checked: a row of 2^62 float32 elements is 2^64 bytes, which would wrap to a small size that fits the file.
        const uint64_t rowBytes
            = checkedMul(blocks, static_cast<uint64_t>(traits->blockBytes), file, "the row size of " + about);
        t.bytes = checkedMul(rowBytes, rows, file, "the size of " + about);
        t.fileOffset = in.read<uint64_t>("the data offset of " + about); // relative until the data section is known
        if (t.fileOffset % m_alignment != 0)
            throw Error(file,
                about + ": its data offset " + std::to_string(t.fileOffset) + " is not a multiple of the alignment "
                    + std::to_string(m_alignment));
        if (!m_tensorIndex.emplace(t.name, m_tensors.size()).second)
            throw Error(file, "duplicate tensor name '" + t.name + "'");
        m_tensors.push_back(std::move(t));
    }
    const uint64_t end = in.position();
    m_dataOffset = checkedAdd(end, (m_alignment - end % m_alignment) % m_alignment, file, "the data section offset");
    for (GgufTensorInfo& t : m_tensors) {
        const std::string about = "tensor '" + t.name + "'";
        t.fileOffset = checkedAdd(m_dataOffset, t.fileOffset, file, "the data offset of " + about);
        const uint64_t last = checkedAdd(t.fileOffset, t.bytes, file, "the data end of " + about);
        if (last > m_file->size())
            throw Error(file,
                about + ": its data [" + std::to_string(t.fileOffset) + ", " + std::to_string(last)
                    + ") lies past the end of the file (" + std::to_string(m_file->size()) + " bytes; truncated?)");
    }
}

const GgufValue* GgufFile::find(const std::string& key) const
{
    const auto it = m_kvIndex.find(key);
    return it == m_kvIndex.end() ? nullptr : &m_kv[it->second].second;
}

const GgufValue& GgufFile::expectType(const std::string& key, const GgufValue& v, bool ok, const char* wanted) const
{
    if (!ok)
        throw Error(path(), "metadata key '" + key + "' is a " + ggufValueTypeName(v.type) + ", expected " + wanted);
    return v;
}

std::optional<int64_t> GgufFile::getInt(const std::string& key) const
{
    const GgufValue* v = find(key);
    if (!v) return std::nullopt;
    return *expectType(key, *v, v->asInt().has_value(), "an integer").asInt();
}

std::optional<double> GgufFile::getFloat(const std::string& key) const
{
    const GgufValue* v = find(key);
    if (!v) return std::nullopt;
    return *expectType(key, *v, v->asFloat().has_value(), "a float").asFloat();
}

std::optional<std::string> GgufFile::getString(const std::string& key) const
{
    const GgufValue* v = find(key);
    if (!v) return std::nullopt;
    return *expectType(key, *v, v->asString() != nullptr, "a string").asString();
}

std::optional<bool> GgufFile::getBool(const std::string& key) const
{
    const GgufValue* v = find(key);
    if (!v) return std::nullopt;
    return *expectType(key, *v, v->asBool() != nullptr, "a bool").asBool();
}

std::optional<std::vector<std::string>> GgufFile::getStrings(const std::string& key) const
{
    const GgufValue* v = find(key);
    if (!v) return std::nullopt;
    expectType(key, *v, v->asArray() && v->elementType == GgufValueType::String, "an array of strings");
    std::vector<std::string> out;
    out.reserve(v->asArray()->size());
    for (const GgufValue& item : *v->asArray())
        out.push_back(*item.asString());
    return out;
}

std::optional<std::vector<double>> GgufFile::getNumbers(const std::string& key) const
{
    const GgufValue* v = find(key);
    if (!v) return std::nullopt;
    const bool numeric = v->asArray() && v->elementType != GgufValueType::String
        && v->elementType != GgufValueType::Array && v->elementType != GgufValueType::Bool;
    expectType(key, *v, numeric, "an array of numbers");
    std::vector<double> out;
    out.reserve(v->asArray()->size());
    for (const GgufValue& item : *v->asArray()) {
        if (const auto f = item.asFloat())
            out.push_back(*f);
        else if (const auto i = item.asInt())
            out.push_back(static_cast<double>(*i));
        else
            out.push_back(static_cast<double>(std::get<uint64_t>(item.data)));
    }
    return out;
}

const GgufTensorInfo* GgufFile::findTensor(const std::string& name) const
{
    const auto it = m_tensorIndex.find(name);
    return it == m_tensorIndex.end() ? nullptr : &m_tensors[it->second];
}

bool looksLikeGguf(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    char magic[4] = {};
    return in.read(magic, 4) && std::memcmp(magic, "GGUF", 4) == 0;
}

} // namespace attn
