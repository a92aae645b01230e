// SPDX-License-Identifier: MIT
#pragma once
// Options shared by the commands that run a model: the backend choice and the input tokens.
#include "cli/args.h"
#include "intervention/intervention.h"
#include "model/model_source.h"
#include "tokenizer/tokenizer.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attn {
class Backend;
}

namespace attn::cli {

/// --backend cpu|vulkan|auto (default auto) for model runs, through the backend registry; a notice such as "no Vulkan
/// device: running on the CPU" goes to stderr. The backend lives until the process exits (one command per process).
/// Throws Error when the choice cannot be honoured.
Backend* modelBackend(const Args& args);

/// The model's tokenizer (--tokenizer FILE overrides the search); null with `why` filled when none is found and
/// `required` is false.
std::unique_ptr<Tokenizer> modelTokenizer(const Args& args, const ModelSource& source, bool required, std::string* why);

/// --head-mask FILE.npy ([layers, heads] float32, HF head_mask semantics; for an encoder-decoder [encoder + 2 x
/// decoder layers, heads], Seq2SeqHeadRows) as an intervention, checked against the model's shape; nullopt without the
/// option. Errors name the file.
std::optional<Intervention> headMaskOption(const Args& args, const ModelConfig& config);

/// Input ids and segment ids from --prompt [--text-pair] (through the tokenizer) or --tokens [--token-types].
struct TokenInput {
    std::vector<int64_t> ids;
    std::vector<int64_t> types; ///< empty unless given or produced by a pair encoding
};
TokenInput readTokenInput(const Args& args, const Tokenizer* tokenizer);

} // namespace attn::cli
