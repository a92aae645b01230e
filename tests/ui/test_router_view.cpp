// SPDX-License-Identifier: MIT
// The Router tab on the hf-tiny Mixtral (4 experts, top-2): every token's gate weights are its two chosen experts
// renormalised to 1, the loads sum to 2, and a dense model's run shows no router.
#include "controller/attention_provider.h"
#include "model/model_loader.h"
#include "plots/router_view.h"
#include "session/session.h"
#include "support/shared_data.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QImage>
#include <QPixmap>
#include <QSet>

#include <cstdio>

namespace attn::ui {
namespace {

RunPtr runOf(const std::string& fixture)
{
    const auto model = loadModel(test::sharedPath("fixtures/hf-tiny/" + fixture));
    auto run = std::make_shared<RunResult>();
    const auto r = Session(model).prefill({ 1, 5, 9, 14, 3, 27 });
    for (const int64_t id : r->tokens)
        run->source.push_back({ std::to_string(id), id, false });
    run->routerLogits = r->routerLogits;
    run->expertsPerToken = model->config().expertsPerToken;
    return run;
}

TEST(RouterView, ShowsTwoExpertsPerTokenAndTheirLoad)
{
    RouterView view;
    view.setRun(runOf("mixtral"));
    ASSERT_TRUE(view.hasRouter());
    for (const int layer : { 0, 1 }) {
        view.setLayer(layer);
        double load = 0;
        for (int64_t e = 0; e < 4; ++e)
            load += view.expertLoad(e);
        EXPECT_NEAR(load, 2.0, 1e-12) << "layer " << layer;
        for (int64_t t = 0; t < 6; ++t) {
            double sum = 0;
            int chosen = 0;
            for (int64_t e = 0; e < 4; ++e) {
                sum += view.gateWeight(t, e);
                chosen += view.gateWeight(t, e) > 0 ? 1 : 0;
            }
            EXPECT_EQ(chosen, 2) << "layer " << layer << " token " << t;
            EXPECT_NEAR(sum, 1.0, 1e-6) << "layer " << layer << " token " << t;
        }
    }
}

/// The tab at the two window sizes the project checks: the heatmap and the load bars are drawn (not a blank widget).
TEST(RouterView, DrawsAtBothWindowSizes)
{
    RouterView view;
    view.setRun(runOf("mixtral"));
    // ATTN_ROUTER_SCREENSHOTS=DIR keeps the PNGs for a look (the temporary folder goes at exit).
    const std::string dir = qEnvironmentVariableIsSet("ATTN_ROUTER_SCREENSHOTS")
        ? qEnvironmentVariable("ATTN_ROUTER_SCREENSHOTS").toStdString()
        : test::makeTempDir("router-view");
    for (const QSize size : { QSize(1024, 700), QSize(1280, 800) }) {
        view.resize(size);
        view.show();
        QApplication::processEvents(); // lay out and polish before grabbing
        const QImage image = view.grab().toImage();
        QSet<QRgb> colors;
        for (int y = 0; y < image.height(); y += 4)
            for (int x = 0; x < image.width(); x += 4)
                colors.insert(image.pixel(x, y));
        EXPECT_GT(colors.size(), 20) << size.width(); // gradient cells, bars, axes and labels
        const QString path
            = QString::fromStdString(dir) + QString("/router-%1x%2.png").arg(size.width()).arg(size.height());
        EXPECT_TRUE(image.save(path));
        std::printf("router view: %s\n", path.toUtf8().constData());
    }
}

TEST(RouterView, DenseModelHasNoRouter)
{
    RouterView view;
    view.setRun(runOf("qwen2"));
    EXPECT_FALSE(view.hasRouter());
}

} // namespace
} // namespace attn::ui
