// SPDX-License-Identifier: MIT
// GGUF files: the reader (header, metadata key/value pairs, tensor table), every typed look-up, the first row of
// each tensor dequantized, the model description and tokenizer from the metadata, and the model itself when the
// whole file loads (its weights stay packed in the mapping).
#include "fuzz_target.h"
#include "io/gguf.h"
#include "model/gguf_model.h"
#include "model/model_loader.h"
#include "quant/dequantize.h"
#include "tokenizer/gguf_tokenizer.h"

#include <string>
#include <vector>

namespace {

template <typename F> void tolerate(F&& f)
{
    try {
        f();
    } catch (const attn::Error&) {
    }
}

} // namespace

AS_FUZZ_TARGET(gguf)
{
    const std::string path = attn::fuzz::writeScratch("model.gguf", data, size);
    const attn::GgufFile file(path);
    for (const auto& entry : file.metadata()) {
        const std::string& key = entry.first; // a named copy: clang 14 lambdas cannot capture structured bindings
        tolerate([&] { file.getInt(key); });
        tolerate([&] { file.getFloat(key); });
        tolerate([&] { file.getString(key); });
        tolerate([&] { file.getBool(key); });
        tolerate([&] { file.getStrings(key); });
        tolerate([&] { file.getNumbers(key); });
    }
    std::vector<float> row;
    for (const auto& t : file.tensors()) {
        if (t.bytes == 0 || t.rows() == 0) continue;
        // The reader checked that every tensor's bytes lie inside the file, so one row is at most the file's size.
        row.resize(static_cast<size_t>(t.rowLength()));
        attn::dequantizeRow(t.type, file.tensorData(t), row.data(), t.rowLength());
    }
    tolerate([&] { attn::ggufModelConfig(file); });
    tolerate([&] {
        const auto tok = attn::loadGgufTokenizer(file);
        std::vector<int64_t> ids;
        for (const auto& token : tok->encode("Hello world, <s> ab\xc3\xa9 12", true))
            ids.push_back(token.id);
        tok->decode(ids, false);
    });
    attn::loadModel(path);
}
