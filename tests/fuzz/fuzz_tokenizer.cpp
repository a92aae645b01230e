// SPDX-License-Identifier: MIT
// Tokenizer files: the first byte picks the kind (tokenizer.json, vocab.json + merges.txt split at the first NUL,
// vocab.txt, llama2.c tokenizer.bin, SentencePiece .model, tokenizer_config.json, Marian text for its language-code
// scan, a Marian vocab.json beside the demo's genuine source.spm and target.spm); a tokenizer that loads also
// encodes and decodes a fixed text.
#include "fuzz_target.h"
#include "tokenizer/hf_tokenizer_config.h"
#include "tokenizer/hf_vocab_files.h"
#include "tokenizer/language_code.h"
#include "tokenizer/llama2c_tokenizer.h"
#include "tokenizer/marian_tokenizer.h"
#include "tokenizer/sentencepiece_tokenizer.h"

#include <filesystem>
#include <memory>
#include <string>

namespace {

/// The scratch folder as a Marian tokenizer folder: the demo's SentencePiece models, copied once (only vocab.json,
/// which maps their pieces to model ids, comes from the input).
std::string marianFolder()
{
    namespace fs = std::filesystem;
    static const std::string folder = [] {
        const fs::path dir = attn::fuzz::scratchDir();
        for (const char* name : { "source.spm", "target.spm" })
            fs::copy_file(fs::path(AS_FUZZ_MARIAN_DIR) / name, dir / name, fs::copy_options::overwrite_existing);
        return dir.string();
    }();
    return folder;
}

std::unique_ptr<attn::Tokenizer> load(uint8_t kind, const uint8_t* data, size_t size)
{
    using attn::fuzz::writeScratch;
    const attn::HfTokenizerConfig none;
    switch (kind % 8) {
    case 0:
        return attn::loadTokenizerJson(writeScratch("tokenizer.json", data, size), none);
    case 1: {
        const std::string all(reinterpret_cast<const char*>(data), size);
        const size_t cut = std::min(all.find('\0'), all.size());
        const std::string merges = cut < all.size() ? all.substr(cut + 1) : std::string("#version: 0.2\n");
        const std::string vocab = writeScratch("vocab.json", data, cut);
        writeScratch("merges.txt", reinterpret_cast<const uint8_t*>(merges.data()), merges.size());
        return attn::loadVocabJsonMerges(
            vocab, (std::filesystem::path(vocab).parent_path() / "merges.txt").string(), none);
    }
    case 2:
        return attn::loadVocabTxt(writeScratch("vocab.txt", data, size), none);
    case 3:
        return std::make_unique<attn::Llama2cTokenizer>(writeScratch("tokenizer.bin", data, size), 0);
    case 4:
        return std::make_unique<attn::SentencePieceTokenizer>(writeScratch("tokenizer.model", data, size));
    case 5: {
        const std::string cfg = writeScratch("tokenizer_config.json", data, size);
        attn::readHfTokenizerConfig(std::filesystem::path(cfg).parent_path().string());
        return nullptr;
    }
    case 7:
        writeScratch("vocab.json", data, size);
        return std::make_unique<attn::MarianTokenizer>(marianFolder());
    default: {
        // Marian's language-code scan over arbitrary text.
        const std::string text(reinterpret_cast<const char*>(data), size);
        for (auto m = attn::nextLanguageCode(text, 0); m.first != std::string::npos;
             m = attn::nextLanguageCode(text, m.second))
            if (m.second <= m.first || m.second > text.size()) __builtin_trap();
        return nullptr;
    }
    }
}

} // namespace

AS_FUZZ_TARGET(tokenizer)
{
    if (size == 0) return;
    // tokenizer_config.json is read from the scratch folder by every kind: remove the one a previous input left.
    std::filesystem::remove(std::filesystem::path(attn::fuzz::scratchDir()) / "tokenizer_config.json");
    const auto tok = load(data[0], data + 1, size - 1);
    if (!tok) return;
    const auto tokens = tok->encode(">>fr<< Hello world, <s> ab\xc3\xa9 12", true);
    std::vector<int64_t> ids;
    for (const auto& t : tokens)
        ids.push_back(t.id);
    tok->decode(ids, false);
}
