// SPDX-License-Identifier: MIT
#include "caption/caption_state.h"

#include "core/error.h"
#include "vision/image_conversion.h"

namespace attn::ui {

namespace {

/// `cross` [layers, heads, S] of one word over `s`'s patches: head `head`, or the mean of the heads for head < 0.
std::vector<float> patchMapOf(const CaptionState& s, const Tensor& cross, int64_t layer, int64_t head)
{
    if (layer < 0 || layer >= s.layers) throw Error("decoder layer " + std::to_string(layer) + " does not exist");
    if (head >= s.heads) throw Error("decoder head " + std::to_string(head) + " does not exist");
    const int64_t S = cross.dim(2), P = s.grid.patches();
    std::vector<float> map(static_cast<size_t>(P), 0.0f);
    const int64_t first = head < 0 ? 0 : head, last = head < 0 ? s.heads : head + 1;
    for (int64_t h = first; h < last; ++h) {
        const float* row = cross.data() + (layer * s.heads + h) * S + s.prefixTokens;
        for (int64_t p = 0; p < P; ++p)
            map[static_cast<size_t>(p)] += row[p] / static_cast<float>(last - first);
    }
    return map;
}

} // namespace

std::vector<float> CaptionState::patchMap(size_t word, int64_t layer, int64_t head) const
{
    if (word >= words.size()) throw Error("caption word " + std::to_string(word) + " does not exist");
    return patchMapOf(*this, words[word].crossAttention, layer, head);
}

bool CaptionState::hasDifference() const
{
    return !words.empty() && !words.front().unmaskedCrossAttention.empty();
}

std::vector<float> CaptionState::patchDifference(size_t word, int64_t layer, int64_t head) const
{
    if (!hasDifference()) throw Error("the caption has no head mask to show the difference of");
    std::vector<float> map = patchMap(word, layer, head);
    const std::vector<float> unmasked = patchMapOf(*this, words[word].unmaskedCrossAttention, layer, head);
    for (size_t p = 0; p < map.size(); ++p)
        map[p] -= unmasked[p];
    return map;
}

CaptionImage loadCaptionImage(const VisionModel& encoder, const QString& path)
{
    CaptionImage c;
    c.source = path;
    c.pixels = encoder.preprocess(imageBufferFromQImage(loadImageFile(path)));
    c.image = imageFromPixelValues(c.pixels, encoder.preprocessConfig());
    c.grid = encoder.patchGrid(c.pixels.dim(1), c.pixels.dim(2));
    return c;
}

CaptionText captionText(const Captioner& captioner, const CaptionRun& run)
{
    CaptionText t;
    for (int64_t id : run.ids())
        if (!captioner.tokenizer->isSpecial(id)) {
            t.ids.push_back(id);
            t.words.push_back(QString::fromStdString(captioner.word(id)));
        }
    t.text = QString::fromStdString(captioner.text(t.ids));
    return t;
}

CaptionPtr captionState(const Captioner& captioner, const CaptionRun& run, const CaptionImage& image,
    std::optional<CaptionComparison> comparison)
{
    auto s = std::make_shared<CaptionState>();
    s->source = image.source;
    s->image = image.image;
    s->grid = image.grid;
    s->prefixTokens = captioner.model->imageEncoder().prefixTokens();
    s->layers = captioner.model->decoderLayers();
    s->heads = captioner.model->decoderHeads();
    s->headRows = captioner.model->headRows();
    s->options = run.options();
    s->words = run.words();
    for (const CaptionWord& w : s->words)
        s->wordTexts.push_back(QString::fromStdString(captioner.word(w.token)));
    s->caption = QString::fromStdString(captioner.text(run.ids()));
    s->finished = run.finished();
    s->comparison = std::move(comparison);
    return s;
}

} // namespace attn::ui
