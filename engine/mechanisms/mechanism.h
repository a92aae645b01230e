// SPDX-License-Identifier: MIT
#pragma once
// The common interface of the attention mechanisms: a variant (parsed from the CLI's `--variant` words) runs on one
// head's q, k, v and returns its attention, its output and every parameter it drew or fitted.
#include "mechanisms/head_inputs.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attn {

enum class MechanismKind {
    Exact,
    Unscaled,
    General,
    Concat,
    Additive,
    Alibi, // scoring functions and position biases (score_functions.cpp)
    Window,
    Longformer,
    BigBird,
    Strided,
    Fixed,
    Padding,
    Lsh,
    Swin, // sparsity patterns (sparse_patterns.cpp)
    Linformer,
    Performer, // linear attention (linear_attention.cpp)
    Flash, // tiled online softmax (flash_attention.cpp)
    Gqa, // KV heads pooled into groups (grouped_kv.cpp)
    Rope, // the head re-rotated with another RoPE base, or none (rope_what_if.cpp)
};

/// A parsed `--variant`: the kind plus its integer fields in the order the contract lists them.
struct MechanismSpec {
    MechanismKind kind = MechanismKind::Exact;
    std::string text; ///< as given, e.g. "bigbird:4:1:2:7"
    std::vector<int64_t> numbers; ///< window:W -> {W}; bigbird:W:G:R:SEED -> {W, G, R, SEED}; flash:BQ:BK -> {BQ, BK}
    std::vector<int64_t> positions; ///< longformer's global token positions, padding's padded key positions
};

/// Throws Error naming the variant and the expected form for anything the contract does not list.
MechanismSpec parseMechanism(const std::string& text);

/// The forms parseMechanism accepts, for usage lines and the GUI's picker.
const std::vector<std::string>& mechanismForms();

/// A parameter a mechanism drew or fitted, written as NAME.npy.
struct NamedArray {
    std::string name; ///< file stem: "mask", "E", "F", "features", "params", ...
    Mat values;
    std::vector<int64_t> shape; ///< empty: values' [rows, cols]; else a row-major reshape (k_heads [H, T, d])
};

/// What one mechanism made of a head.
struct MechanismResult {
    Mat probs; ///< [T, T] over the keys (Performer: the implied matrix), or [T, k] for Linformer
    Mat out; ///< [T, d]
    bool probsOverKeys = true; ///< false when probs' columns are not the tokens (Linformer)
    /// true when the mechanism ignores the model's mask by design (Linformer), so it is compared with the head's
    /// unmasked attention
    bool unmaskedReference = false;
    std::vector<NamedArray> arrays; ///< every parameter drawn or fitted, and the pattern's mask
    std::map<std::string, double> numbers; ///< variant-specific metrics (bytes_moved, slope, kv_cache_bytes, ...)
    std::map<std::string, std::string> notes; ///< how parameters were obtained, what was compared, ...
};

/// Runs `spec` on `inputs`. Throws Error when the variant does not fit the head (a window below 1, a global token
/// outside the input, GQA groups that do not divide the KV heads, ...).
MechanismResult runMechanism(const HeadInputs& inputs, const MechanismSpec& spec);

// The families, one file each; runMechanism dispatches on spec.kind.
MechanismResult runScoreFunction(const HeadInputs& inputs, const MechanismSpec& spec);
MechanismResult runSparsePattern(const HeadInputs& inputs, const MechanismSpec& spec);
MechanismResult runLinearAttention(const HeadInputs& inputs, const MechanismSpec& spec);
MechanismResult runFlashAttention(const HeadInputs& inputs, const MechanismSpec& spec);
MechanismResult runGroupedKv(const HeadInputs& inputs, const MechanismSpec& spec);
MechanismResult runRopeWhatIf(const HeadInputs& inputs, const MechanismSpec& spec);

} // namespace attn
