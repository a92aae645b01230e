// SPDX-License-Identifier: MIT
#pragma once
// What the Mechanisms tab asks the engine thread for, and the immutable answer it shows.
#include "mechanisms/approximation_sweep.h"
#include "mechanisms/flash_attention.h"
#include "mechanisms/grouped_kv.h"
#include "mechanisms/head_entropy_map.h"
#include "mechanisms/mechanism_report.h"
#include "mechanisms/position_tables.h"
#include "mechanisms/scale_sweep.h"
#include "mechanisms/seq2seq_head_inputs.h"
#include "model/attention_snapshot.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attn {
class ModelRegistry;
}

namespace attn::ui {

/// Where a model head is read, always from the open model's copy in the registry (never a second load): the request
/// reruns the input of the last run on it.
enum class HeadSource {
    Session, ///< decoders and encoders (BERT): a session over MechanismsRequest::sourceIds
    RnnSeq2Seq, ///< the greedy translation of MechanismsRequest::sourceIds
    Image, ///< one pass over MechanismsRequest::pixels
    Seq2Seq, ///< transformer encoder-decoders: sourceIds encoded, targetIds teacher-forced, MechanismsRequest::block
};

/// What a result holds, one bit per page's computation. A request computes the parts it names (the tab: its visible
/// page's) and keeps from the last result on the same head what that one had; the rest stays empty until a page
/// that shows it is opened. The variant against the exact head is in every result (the status line reads it).
enum MechanismsPart : unsigned {
    kComparePart = 1u << 0, ///< report and its maps
    kScalePart = 1u << 1, ///< temperature and d_k curves, the head's scale point, the synthetic sweep
    kLinearPart = 1u << 2, ///< the Linformer and Performer sweeps
    kFlashPart = 1u << 3, ///< flash rows, error and bytes moved
    kGqaPart = 1u << 4, ///< gqa and gqaPerHead
    kPositionsPart = 1u << 5, ///< position tables, ALiBi and their maps
    kAllParts = (1u << 6) - 1,
};

struct MechanismsRequest {
    unsigned parts = kAllParts; ///< MechanismsPart bits to compute
    bool synthetic = false; ///< synthetic unit-variance q, k, v instead of the open model's head
    int64_t layer = 0, head = 0; ///< the model head (after the last run)
    HeadSource source = HeadSource::Session;
    std::string modelPath; ///< the open model, as it was opened
    std::vector<int64_t> sourceIds; ///< the last run's input ids (an encoder-decoder's source, EOS included)
    std::vector<int64_t> targetIds; ///< Seq2Seq: the last run's decoder inputs (start token first)
    /// The chips of sourceIds and targetIds as the run showed them: they label the heatmaps' rows and keys.
    std::vector<TokenChip> tokenChips, targetChips;
    AttentionBlock block = AttentionBlock::Encoder; ///< Seq2Seq: which of its attentions
    std::shared_ptr<const Tensor> pixels; ///< Image: the classified image [channels, H, W]
    /// Seq2Seq speech models (Whisper): the log-mel features .npy; image-to-text (the captioner): the image file. The
    /// same inputs as attnscope-cli mechanisms --features / --image.
    std::string inputFile;
    /// Whisper and the captioner: the decoder's text after its start token (their tokenizer's tokens); empty: the
    /// caption or transcript the model generates greedily from inputFile.
    std::string decoderText;
    int64_t tokens = 32, dk = 64; ///< synthetic size
    uint64_t seed = 0; ///< synthetic seed
    std::string variant = "window:4"; ///< an attnscope-cli mechanisms --variant
    int64_t flashBq = 4, flashBk = 4; ///< the FlashAttention page's tiles
    int64_t gqaGroups = 1; ///< the GQA page's what-if (1 = MQA)
};
using MechanismsRequestPtr = std::shared_ptr<const MechanismsRequest>;

/// Positional encodings at the head's size (the Positions page).
struct PositionTables {
    Mat sinusoid; ///< [T, d]
    Mat ropeAngles; ///< [T, d / 2]
    std::vector<double> ropeDecay; ///< distance 0 .. T - 1
    Mat t5Buckets; ///< [T, T]
    T5Bucketing t5Bucketing; ///< what t5Buckets was computed with
    /// [T, T] cosine similarity of the model's learned position rows (GPT-2, BERT, ViT / DeiT, BART); empty otherwise
    Mat learned;
    Mat relativeBias; ///< T5's learned relative bias [buckets, heads] of the head's stack; empty otherwise
    std::string learnedNote; ///< why `learned` is empty when the model should have one
    bool modelHasRope = false;
    double ropeTheta = 10000.0;
};

/// The pages' heatmaps, built with the result on the engine thread: each [T, T] matrix made a snapshot (a float copy,
/// a difference) costs the GUI thread tens of milliseconds at 2k tokens, more than showing a result may stall.
struct MechanismsMaps {
    std::vector<TokenChip> queries, keys; ///< what labels the rows and the keys (keys empty: the queries')
    SnapshotPtr exact, variant, difference; ///< the Exact vs variant page
    SnapshotPtr sinusoid, rope, t5, alibi; ///< the Positions page
    SnapshotPtr learned; ///< the model's learned positions (or T5's relative bias); null when it has none
};

/// Seeds averaged per point of the linear-attention error plot.
inline constexpr int kSweepSeeds = 8;

struct MechanismsResult {
    MechanismsRequest request;
    unsigned parts = 0; ///< the MechanismsPart bits whose members below are filled (the others are empty)
    HeadInputs inputs;
    MechanismReport report; ///< request.variant against the exact head
    /// flash:BQ:BK on the sampled query rows (running max / sum per key block), its tiles and bytes of the whole head
    FlashRows flash;
    double flashMaxError = 0; ///< max |flash out - exact out| over those rows
    std::vector<std::pair<int64_t, AttentionIo>> io; ///< bytes moved against T at the flash tiles
    std::vector<ScalePoint> sweep; ///< synthetic q, k at T tokens, d_k = 1 .. 1024
    std::vector<TemperaturePoint> headAtDk; ///< the head's own q, k scaled by 1/sqrt(d_k) at each sweep d_k
    /// Linformer (k) and Performer (m) output error against the head as the size grows, over kSweepSeeds seeds.
    ApproximationSweep linformerSweep, performerSweep;
    /// The head's own scores at temperatureAxis(the d_k slider's temperatures): 1/8 .. 8 or wider.
    std::vector<TemperaturePoint> temperature;
    ScalePoint head; ///< the head's own q, k: scaled (as the model runs) and unscaled, at its d_k
    /// Model heads: gqa:G on every query head of the layer (attention change per head, on the sampled rows); empty for
    /// synthetic input.
    std::vector<MechanismMetrics> gqaPerHead;
    MechanismResult gqa; ///< gqa:G on the sampled rows of the selected head (numbers, groups); empty for synthetic input
    /// Query rows the row-wise measures took (sweeps, temperature and d_k curves, GQA, flash): sweepQueryRows(T,
    /// kSweepRowLimit), all of them up to the limit.
    int64_t sampledRows = 0;
    double uniformEntropy = 0; ///< mean ln(visible keys) over those rows: the temperature plot's uniform line
    /// The head's size's tables, shared with the next request on the same input (MechanismsCache)
    std::shared_ptr<const PositionTables> positions;
    Mat alibi; ///< [T, T] ALiBi's bias of this head
    std::optional<HeadEntropyMap> entropy; ///< every head of the model's run
    std::vector<int64_t> tokenIds; ///< the model input (empty for synthetic and images)
    /// What the model calls its query rows and keys (an RNN's generated and source words, an image's patches); empty:
    /// the run's tokens label both.
    std::vector<std::string> queryLabels, keyLabels;
    MechanismsMaps maps;
    /// A model no other tab holds in the registry (Whisper), kept while this result is shown so that the next request
    /// finds it there instead of loading it again.
    std::shared_ptr<const void> model;
};
using MechanismsPtr = std::shared_ptr<const MechanismsResult>;

struct MechanismsCache;

/// Computes everything the tab shows (engine thread); `models` holds the open model. `keepGoing` is asked between
/// stages and inside the model's pass; false throws attn::Cancelled. `cache` (null: none) holds what the last request
/// on the same input computed: what this one can reuse is read from it, what it computes anew replaces it. Throws
/// Error on a bad variant or head, and when the request's model is no longer open.
MechanismsPtr computeMechanisms(const MechanismsRequest& request, ModelRegistry& models,
    const std::function<bool()>& keepGoing, MechanismsCache* cache = nullptr);

} // namespace attn::ui
