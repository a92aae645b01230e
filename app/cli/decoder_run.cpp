// SPDX-License-Identifier: MIT
#include "cli/decoder_run.h"

#include "analysis/corpus_lines.h"
#include "cli/model_args.h"
#include "core/error.h"
#include "model/model_loader.h"

#include <charconv>

namespace attn::cli {

DecoderRun openDecoder(const Args& args, const std::string& command, bool needTokenizer)
{
    DecoderRun run;
    run.source = probeModel(args.positional(0, "MODEL"));
    if (run.source.config.kind != ModelKind::Decoder)
        throw Error(run.source.config.source,
            command + " needs a decoder model, not " + run.source.config.modelType + " ("
                + modelKindName(run.source.config.kind) + ")");
    std::string noTokenizer;
    run.tokenizer = modelTokenizer(args, run.source, needTokenizer, &noTokenizer);
    run.model = std::dynamic_pointer_cast<const DecoderModel>(std::shared_ptr<const Model>(loadModel(run.source)));
    if (!run.model) throw Error(run.source.config.source, command + ": the model did not load as a decoder");
    run.options.backend = modelBackend(args);
    return run;
}

std::vector<int64_t> encodeText(const DecoderRun& run, const std::string& text, bool special)
{
    if (!run.tokenizer) throw Error("no tokenizer for " + run.source.config.source + ": give token ids instead");
    std::vector<int64_t> ids;
    for (const Token& t : run.tokenizer->encode(text, special))
        ids.push_back(t.id);
    return ids;
}

int64_t singleToken(const DecoderRun& run, const std::string& token, const std::string& option)
{
    if (token.size() > 1 && token[0] == '#') {
        int64_t id = -1;
        const auto [end, ec] = std::from_chars(token.data() + 1, token.data() + token.size(), id);
        if (ec != std::errc() || end != token.data() + token.size() || id < 0 || id >= run.model->config().vocabSize)
            throw Error("--" + option + " " + token + " is outside the vocabulary");
        return id;
    }
    const std::vector<int64_t> ids = encodeText(run, token, false);
    if (ids.size() != 1)
        throw Error("--" + option + " \"" + token + "\" is " + std::to_string(ids.size())
            + " tokens, not one (mind the leading space; or give #ID)");
    return ids[0];
}

std::vector<std::vector<int64_t>> readCorpus(
    const DecoderRun& run, const std::string& path, int64_t shard, int64_t shards)
{
    if (!run.tokenizer) throw Error("no tokenizer for " + run.source.config.source + ": a corpus is text");
    return readCorpusLines(path, *run.tokenizer, run.model->config().maxPositions, shard, shards);
}

std::string tokenLabel(const DecoderRun& run, int64_t id)
{
    return run.tokenizer ? run.tokenizer->tokenText(id) : "[" + std::to_string(id) + "]";
}

} // namespace attn::cli
