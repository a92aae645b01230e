// SPDX-License-Identifier: MIT
#include "mechanisms/mechanisms_maps.h"

#include "mechanisms/matrix_snapshot.h"

namespace attn::ui {

namespace {

/// The chips of the rows (queries) and of the columns (keys; empty when they are the rows').
std::pair<std::vector<TokenChip>, std::vector<TokenChip>> labels(const MechanismsResult& r)
{
    auto chips = [](const std::vector<std::string>& names) {
        std::vector<TokenChip> out;
        for (size_t i = 0; i < names.size(); ++i)
            out.push_back({ names[i], static_cast<int64_t>(i), false });
        return out;
    };
    if (!r.queryLabels.empty())
        return { chips(r.queryLabels), r.keyLabels == r.queryLabels ? std::vector<TokenChip> {} : chips(r.keyLabels) };
    const MechanismsRequest& request = r.request;
    const int64_t T = r.inputs.tokens();
    if (!request.synthetic && request.source == HeadSource::Seq2Seq) {
        const AttentionBlock block = request.block;
        const std::vector<TokenChip>& rows
            = block == AttentionBlock::Encoder ? request.tokenChips : request.targetChips;
        if (static_cast<int64_t>(rows.size()) == T)
            return { rows, block == AttentionBlock::Cross ? request.tokenChips : std::vector<TokenChip> {} };
    }
    if (!request.synthetic && static_cast<int64_t>(request.tokenChips.size()) == T) return { request.tokenChips, {} };
    std::vector<TokenChip> out, keys;
    for (int64_t i = 0; i < T; ++i) {
        const QString text = r.tokenIds.empty() ? QStringLiteral("t%1").arg(i)
                                                : QStringLiteral("#%1").arg(r.tokenIds[static_cast<size_t>(i)]);
        out.push_back({ text.toStdString(), r.tokenIds.empty() ? i : r.tokenIds[static_cast<size_t>(i)], false });
    }
    // Cross-attention over a source the main input did not give (Whisper's frames, the captioner's patches): the
    // source position, a label that is its own index (the axis does not repeat it).
    if (r.inputs.keyCount() != T)
        for (int64_t j = 0; j < r.inputs.keyCount(); ++j)
            keys.push_back({ std::to_string(j), j, false });
    return { out, keys };
}

/// The maps, labelled, as snapshots.
MechanismsMaps labelledMaps(const MechanismsResult& r, const MechanismsMaps* samePositions)
{
    MechanismsMaps m;
    std::tie(m.queries, m.keys) = labels(r);
    const MechanismReport& rep = r.report;
    MaskSpec mask;
    mask.causal = r.inputs.causal;
    mask.slidingWindow = r.inputs.slidingWindow;
    m.exact = matrixSnapshot(rep.exact, m.queries, m.keys, mask);
    if (rep.variant.probsOverKeys) {
        const MaskSpec variantMask = rep.variant.unmaskedReference ? MaskSpec {} : mask;
        m.variant = matrixSnapshot(rep.variant.probs, m.queries, m.keys, variantMask);
        m.difference = differenceSnapshot(rep.variant.probs, rep.reference, m.queries, m.keys, variantMask);
    } else {
        // Linformer: rows are queries, columns the k projected positions; its difference is taken on the outputs.
        m.variant = matrixSnapshot(rep.variant.probs, m.queries, indexChips("E", rep.variant.probs.cols()));
        m.difference
            = differenceSnapshot(rep.variant.out, rep.referenceOut, m.queries, indexChips("d", rep.variant.out.cols()));
    }
    if (!(r.parts & kPositionsPart)) return m;
    if (samePositions) {
        m.sinusoid = samePositions->sinusoid;
        m.rope = samePositions->rope;
        m.t5 = samePositions->t5;
        m.alibi = samePositions->alibi;
        m.learned = samePositions->learned;
        return m;
    }
    const PositionTables& p = *r.positions;
    const int64_t d = r.inputs.dim();
    m.sinusoid = matrixSnapshot(p.sinusoid, m.queries, indexChips("d", d));
    m.rope = matrixSnapshot(p.ropeAngles, m.queries, indexChips("i", d / 2));
    // The head's own mask (causal for decoders) greys out what it never scores.
    MaskSpec causal;
    causal.causal = r.inputs.causal;
    m.t5 = matrixSnapshot(p.t5Buckets, m.queries, {}, causal);
    m.alibi = matrixSnapshot(r.alibi, m.queries, {}, causal);
    if (p.learned.size())
        m.learned = matrixSnapshot(p.learned, m.queries);
    else if (p.relativeBias.size())
        m.learned = matrixSnapshot(
            p.relativeBias, indexChips("b", p.relativeBias.rows()), indexChips("h", p.relativeBias.cols()));
    return m;
}

/// Every map's overviews made here, on the engine thread: the GUI thread built them (a scan of each [T, T] map) on
/// its first drawing of a result, part of the 86-94 ms events of a result at 4,096 tokens.
MechanismsMaps prepared(MechanismsMaps m)
{
    for (const SnapshotPtr& map : { m.exact, m.variant, m.difference, m.sinusoid, m.rope, m.t5, m.alibi, m.learned })
        if (map) map->prepareOverviews(0, 0);
    return m;
}

} // namespace

MechanismsMaps mechanismsMaps(const MechanismsResult& r, const MechanismsMaps* samePositions)
{
    return prepared(labelledMaps(r, samePositions));
}

} // namespace attn::ui
