// SPDX-License-Identifier: MIT
#include "ui_test_support.h"

#include "core/npy.h"
#include "support/shared_data.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attn::test {

Tensor goldenAttention(const std::string& model, int layer) {
    char name[32];
    std::snprintf(name, sizeof name, "attentions.L%02d.npy", layer);
    return readNpy(sharedPath("fixtures/hf-tiny/" + model + "/golden/item0/" + name));
}

double maxDiffInsideWindow(
    const ui::HeatmapMatrix& m, const Tensor& golden, int64_t layer, int64_t head, int64_t window)
{
    double worst = 0;
    for (int64_t i = 0; i < m.rows; ++i)
        for (int64_t j = 0; j < m.cols; ++j) {
            if (j <= i && (window == 0 || i - j < window))
                worst = std::max(worst, std::abs(m.at(i, j) - golden.at({ head, i, j })));
            else
                EXPECT_TRUE(std::isnan(m.at(i, j))) << "layer " << layer << ": " << i << ", " << j;
        }
    return worst;
}

ui::SnapshotPtr goldenSnapshot(const std::string& model, bool causal, int64_t numKvHeads) {
    const std::string dir = "fixtures/hf-tiny/" + model + "/golden/item0/";
    std::vector<TokenChip> tokens;
    for (int64_t id : readNpyInts(sharedPath(dir + "input_ids.npy")))
        tokens.push_back({ "#" + std::to_string(id), id, false });
    std::vector<Tensor> layers { goldenAttention(model, 0), goldenAttention(model, 1) };
    MaskSpec mask;
    mask.causal = causal;
    return std::make_shared<const ui::AttentionSnapshot>(std::move(tokens), std::move(layers), numKvHeads, mask);
}

QString fixtureText(const std::string& model) {
    QFile file(QString::fromStdString(sharedPath("fixtures/hf-tiny/" + model + "/manifest.json")));
    if (!file.open(QIODevice::ReadOnly)) throw std::runtime_error("cannot read manifest of " + model);
    const QJsonObject inputs = QJsonDocument::fromJson(file.readAll()).object().value("inputs").toObject();
    return inputs.value("items").toArray().at(0).toObject().value("text").toString();
}

ui::RunPtr singleTokenRun(const std::string& text) {
    auto run = std::make_shared<ui::RunResult>();
    run->source = { { text, 1, false } };
    run->views.emplace_back(ui::AttentionKind::Self,
        std::make_shared<const ui::AttentionSnapshot>(
            run->source, std::vector<Tensor> { Tensor({ 1, 1, 1 }, { 1.0f }) }, 1, MaskSpec {}));
    return run;
}

double maxAbsDiff(const float* a, const float* b, int64_t n) {
    double worst = 0;
    for (int64_t i = 0; i < n; ++i)
        worst = std::max(worst, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
    return worst;
}

} // namespace attn::test
