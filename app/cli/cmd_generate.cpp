// SPDX-License-Identifier: MIT
// `generate`: token-by-token decoding through the one decode loop (DecodeTimeline). The loop, the sampler and, for
// llama2.c tokenizers, the printing follow llama2.c run.c exactly, so seeded runs print what run.c prints.
#include "backend/backend.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/model_args.h"
#include "core/error.h"
#include "model/model_loader.h"
#include "session/decode_timeline.h"
#include "tokenizer/llama2c_tokenizer.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>

namespace attn::cli {
namespace {

/// Prints tokens as they are accepted.
class TokenPrinter {
public:
    TokenPrinter(const Tokenizer* tokenizer, int64_t firstToken)
        : m_tokenizer(tokenizer)
        , m_llama2c(dynamic_cast<const Llama2cTokenizer*>(tokenizer))
        , m_ids { firstToken } {
        if (!m_tokenizer) // ids: the whole sequence, start token included
            std::printf("%lld", static_cast<long long>(firstToken));
    }

    void print(int64_t prev, int64_t next) {
        m_ids.push_back(next);
        if (m_llama2c)
            printRunCPiece(prev, next);
        else if (m_tokenizer)
            printDecodedSuffix(false);
        else
            std::printf(" %lld", static_cast<long long>(next));
        std::fflush(stdout);
    }
    void finish() {
        if (m_tokenizer && !m_llama2c) printDecodedSuffix(true);
        std::printf("\n");
    }

private:
    /// run.c decode() + safe_printf(): strip the space after BOS, "<0xNN>" is a raw byte, and a lone byte that is
    /// neither printable nor whitespace is skipped.
    void printRunCPiece(int64_t prev, int64_t next) const {
        std::string piece = m_llama2c->piece(next);
        if (prev == 1 && !piece.empty() && piece[0] == ' ') piece.erase(0, 1);
        unsigned int byte = 0;
        int consumed = 0;
        if (piece.size() >= 4 && piece.compare(0, 3, "<0x") == 0
            && std::sscanf(piece.c_str(), "<0x%2X%n", &byte, &consumed) == 1 && consumed >= 4)
            piece = std::string(1, static_cast<char>(byte));
        if (piece.empty()) return;
        if (piece.size() == 1) {
            const auto b = static_cast<unsigned char>(piece[0]);
            if (!(std::isprint(b) || std::isspace(b))) return;
        }
        std::fwrite(piece.data(), 1, piece.size(), stdout);
    }

    /// Other tokenizers decode the whole text, prompt included; what is new is printed, holding back an incomplete
    /// UTF-8 tail.
    void printDecodedSuffix(bool final) {
        const std::string text = m_tokenizer->decode(m_ids, true); // special tokens (BOS) are not shown
        if (!final && text.size() >= 3 && text.compare(text.size() - 3, 3, "\xEF\xBF\xBD") == 0) return;
        if (text.compare(0, m_printed.size(), m_printed) == 0) {
            std::fwrite(text.data() + m_printed.size(), 1, text.size() - m_printed.size(), stdout);
            m_printed = text;
        }
    }

    const Tokenizer* m_tokenizer;
    const Llama2cTokenizer* m_llama2c;
    std::vector<int64_t> m_ids;
    std::string m_printed;
};

} // namespace

int runGenerate(const std::vector<std::string>& words) {
    const Args args(words, {});
    args.allowOnly({ "tokenizer", "prompt", "tokens", "max-new-tokens", "steps", "temperature", "top-p", "top-k",
        "seed", "backend", "head-mask" });
    const ModelSource source = probeModel(args.positional(0, "MODEL"));
    if (source.config.kind != ModelKind::Decoder)
        throw Error(source.config.source,
            "generate needs a decoder model, not " + source.config.modelType + " (" + modelKindName(source.config.kind)
                + ")");
    std::string noTokenizer;
    const auto tokenizer = modelTokenizer(args, source, args.has("prompt"), &noTokenizer);
    if (!tokenizer) std::cerr << "no tokenizer (" << noTokenizer << "): printing token ids\n";

    std::vector<int64_t> prompt;
    if (args.has("tokens")) {
        if (args.has("prompt")) throw UsageError("give either --prompt or --tokens");
        prompt = args.getIds("tokens");
    } else {
        for (const Token& t : tokenizer->encode(args.get("prompt", ""))) // no prompt: just BOS, as run.c
            prompt.push_back(t.id);
    }
    if (prompt.empty())
        throw UsageError("the prompt is empty and the tokenizer adds no BOS: give --prompt or --tokens");
    const auto numPrompt = static_cast<int64_t>(prompt.size());

    SamplerOptions so;
    so.temperature = static_cast<float>(args.getDouble("temperature", 0.0));
    so.topP = static_cast<float>(args.getDouble("top-p", 0.9));
    so.topK = args.getInt("top-k", 0);
    so.seed = static_cast<uint64_t>(args.getInt("seed", 0));
    if (so.seed == 0) so.seed = static_cast<uint64_t>(std::time(nullptr)); // run.c

    const auto model = loadModel(source);
    const int64_t limit = model->config().maxPositions;
    // --steps counts every position including the prompt (llama2.c -n); --max-new-tokens counts sampled tokens.
    if (args.has("steps") && args.has("max-new-tokens")) throw UsageError("give either --steps or --max-new-tokens");
    int64_t steps
        = args.has("max-new-tokens") ? numPrompt - 1 + args.getInt("max-new-tokens", 0) : args.getInt("steps", 256);
    if (args.has("max-new-tokens") && args.getInt("max-new-tokens", 0) < 0)
        throw UsageError("--max-new-tokens must not be negative");
    if (steps <= 0 || steps > limit) steps = limit; // run.c: 0 or too many = the model's sequence length

    Backend* backend = modelBackend(args);
    const std::optional<Intervention> headMask = headMaskOption(args, source.config);
    ForwardOptions options;
    options.backend = backend;
    options.intervention = headMask ? &*headMask : nullptr;
    const std::shared_ptr<const Tokenizer> sharedTokenizer(tokenizer.get(), [](const Tokenizer*) { });
    DecodeTimeline timeline(source, model, sharedTokenizer, options);
    timeline.setSampling(so);
    timeline.reserve(steps);
    timeline.setRecordsDistribution(false); // only the tokens are printed
    const int64_t stop = timeline.info().stopToken;

    // run.c runs `steps` positions and prints the token chosen after each: the prompt's next token while the prompt
    // lasts, then the sampler's. The token after the last position is printed without being run.
    TokenPrinter printer(tokenizer.get(), prompt[0]);
    const int64_t promptRun = std::min(numPrompt, steps);
    timeline.prompt(std::vector<int64_t>(prompt.begin(), prompt.begin() + promptRun));
    // Timed from the end of the prompt: for the usual BOS-only prompt that is run.c's rule (the first, warm-up
    // step is not timed).
    const auto start = std::chrono::steady_clock::now();
    for (int64_t pos = 1; pos < promptRun; ++pos)
        printer.print(prompt[static_cast<size_t>(pos - 1)], prompt[static_cast<size_t>(pos)]);
    int64_t pos = promptRun;
    bool stopped = false;
    if (promptRun < numPrompt) {
        printer.print(prompt[static_cast<size_t>(pos - 1)], prompt[static_cast<size_t>(pos)]);
    } else {
        while (pos < steps) {
            const DecodeStepPtr s = timeline.step();
            if (!s) {
                stopped = true;
                break;
            }
            printer.print(timeline.steps()[static_cast<size_t>(pos - 1)]->token.id, s->token.id);
            ++pos;
        }
        if (!stopped) {
            const int64_t last = timeline.draw();
            if (last != stop) printer.print(timeline.steps().back()->token.id, last);
        }
    }
    printer.finish();
    if (pos > promptRun) {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::fprintf(stderr, "achieved tok/s: %f\n", static_cast<double>(pos - promptRun) / s);
    }
    return 0;
}

} // namespace attn::cli
