// SPDX-License-Identifier: MIT
#include "tokenizer/tokenizer_loader.h"

#include "core/error.h"
#include "core/input_file.h"
#include "tokenizer/hf_tokenizer_config.h"
#include "tokenizer/gguf_tokenizer.h"
#include "tokenizer/hf_vocab_files.h"
#include "tokenizer/llama2c_tokenizer.h"
#include "tokenizer/marian_tokenizer.h"
#include "tokenizer/sentencepiece_tokenizer.h"

#include <algorithm>
#include <filesystem>
#include <optional>

namespace fs = std::filesystem;

namespace attn {
namespace {

std::string lowerExtension(const fs::path& p)
{
    std::string e = p.extension().string();
    std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return e;
}

/// tokenizer_config.json lives beside the tokenizer file; an override file from elsewhere falls back to the model's.
HfTokenizerConfig configFor(const fs::path& file, const ModelSource& source)
{
    const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
    if (fs::exists(dir / "tokenizer_config.json") || fs::exists(dir / "special_tokens_map.json")
        || source.folder.empty())
        return readHfTokenizerConfig(dir.string());
    return readHfTokenizerConfig(source.folder);
}

std::unique_ptr<Tokenizer> loadFile(const fs::path& file, const ModelSource& source)
{
    requireRegularFile(file.string(), file_caps::kTokenizer, "tokenizer file");
    const std::string ext = lowerExtension(file);
    const std::string name = file.filename().string();
    const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
    if (ext == ".spm" || (name == "vocab.json" && fs::exists(dir / "source.spm")))
        return std::make_unique<MarianTokenizer>(dir.string());
    if (ext == ".json" && name == "vocab.json") {
        const fs::path merges = file.parent_path() / "merges.txt";
        if (!fs::exists(merges))
            throw Error(file.string(), "a vocab.json needs merges.txt beside it (not found: " + merges.string() + ")");
        return loadVocabJsonMerges(file.string(), merges.string(), configFor(file, source));
    }
    if (ext == ".json") return loadTokenizerJson(file.string(), configFor(file, source));
    if (ext == ".txt" && name == "merges.txt")
        throw Error(file.string(), "give the vocab.json beside merges.txt as the tokenizer");
    if (ext == ".txt") return loadVocabTxt(file.string(), configFor(file, source));
    if (ext == ".model") return std::make_unique<SentencePieceTokenizer>(file.string());
    if (ext == ".gguf") return loadGgufTokenizer(file.string());
    if (ext == ".bin")
        return std::make_unique<Llama2cTokenizer>(
            file.string(), source.format == ModelFormat::Llama2c ? source.config.vocabSize : 0);
    throw Error(file.string(),
        "unrecognized tokenizer file; expected tokenizer.json, vocab.json (+ merges.txt or MarianMT's source.spm), "
        "vocab.txt, a SentencePiece .model, a MarianMT source.spm or a llama2.c tokenizer .bin");
}

/// The llama2.c rule: tokenizer.bin, else tok<vocab_size>.bin, else the only tok*.bin.
std::optional<fs::path> llama2cTokenizerIn(const fs::path& dir, const ModelSource& source)
{
    if (fs::exists(dir / "tokenizer.bin")) return dir / "tokenizer.bin";
    const fs::path sized = dir / ("tok" + std::to_string(source.config.vocabSize) + ".bin");
    if (fs::exists(sized)) return sized;
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(dir)) {
        const std::string n = entry.path().filename().string();
        if (entry.is_regular_file() && n.rfind("tok", 0) == 0 && lowerExtension(entry.path()) == ".bin")
            found.push_back(entry.path());
    }
    if (found.size() > 1) {
        std::sort(found.begin(), found.end());
        std::string names;
        for (const auto& f : found) {
            names += names.empty() ? "" : ", ";
            names += f.filename().string();
        }
        throw Error(dir.string(), "several llama2.c tokenizers (" + names + "); choose one with --tokenizer FILE");
    }
    if (found.size() == 1) return found.front();
    return std::nullopt;
}

std::unique_ptr<Tokenizer> searchFolder(const fs::path& dir, const ModelSource& source)
{
    std::vector<fs::path> candidates;
    std::string lookedFor;
    if (source.format == ModelFormat::Llama2c) {
        lookedFor = "tokenizer.bin, tok" + std::to_string(source.config.vocabSize) + ".bin, tok*.bin, tokenizer.model";
        if (auto bin = llama2cTokenizerIn(dir, source)) candidates.push_back(*bin);
        if (fs::exists(dir / "tokenizer.model")) candidates.push_back(dir / "tokenizer.model");
    } else {
        lookedFor = "source.spm, tokenizer.json, vocab.json + merges.txt, vocab.txt, tokenizer.model, spiece.model";
        for (const char* name :
            { "source.spm", "tokenizer.json", "vocab.json", "vocab.txt", "tokenizer.model", "spiece.model" })
            if (fs::exists(dir / name)) candidates.push_back(dir / name);
    }
    if (candidates.empty())
        throw Error(dir.string(),
            "no tokenizer found in the model folder (looked for " + lookedFor + "); pass one with --tokenizer FILE");
    // A file of an unsupported kind (e.g. a Unigram tokenizer.json) gives way to the next one; if none loads,
    // the first file's error is the one that explains.
    std::optional<Error> firstError;
    for (const fs::path& file : candidates) {
        try {
            return loadFile(file, source);
        } catch (const Error& e) {
            if (!firstError) firstError = e;
        }
    }
    throw *firstError;
}

} // namespace

std::unique_ptr<Tokenizer> loadTokenizer(const ModelSource& source, const std::string& overridePath)
{
    std::unique_ptr<Tokenizer> tok;
    if (!overridePath.empty()) {
        if (!fs::exists(overridePath)) throw Error(overridePath, "tokenizer file not found");
        tok = fs::is_directory(overridePath) ? searchFolder(overridePath, source) : loadFile(overridePath, source);
    } else if (source.format == ModelFormat::Gguf) {
        tok = loadGgufTokenizer(source.weightsPath); // the file's own vocabulary
    } else {
        tok = searchFolder(source.folder.empty() ? fs::path(".") : fs::path(source.folder), source);
    }
    if (source.config.vocabSize > 0 && tok->vocabSize() > source.config.vocabSize)
        throw Error(tok->path(),
            "the tokenizer has " + std::to_string(tok->vocabSize()) + " tokens but the model ("
                + (source.configPath.empty() ? source.weightsPath : source.configPath) + ") only "
                + std::to_string(source.config.vocabSize) + "; it is not this model's tokenizer");
    return tok;
}

} // namespace attn
