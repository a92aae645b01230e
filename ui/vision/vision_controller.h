// SPDX-License-Identifier: MIT
#pragma once
// Vision models as jobs of the app's one engine (EngineController::post): the text Session does not take images, so
// the jobs call VisionModel::classify directly, and the answers come back on the GUI thread. The model itself is held
// on the engine thread (EngineContext::session), never here.
#include "service/engine_context.h"
#include "vision/vision_result.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>

namespace attn::ui {

class EngineController;

class VisionController : public QObject {
    Q_OBJECT
public:
    /// `engine`: the app's engine; null gives this controller an engine of its own (a tab used alone, in tests).
    explicit VisionController(EngineController* engine = nullptr, QObject* parent = nullptr);
    ~VisionController() override;

    /// Forgets the model (another model is being opened); answers still on their way are dropped.
    void close();

    /// Loads a model asynchronously: modelOpened, or failed when it cannot be loaded or is not a vision model.
    void openModel(const QString& path);
    /// Classifies an image (from the file `source`, "" when none) asynchronously: resultReady or failed.
    void classify(const QImage& image, const QString& source = {});
    /// Classifies preprocessed pixels [channels, H, W] asynchronously: resultReady or failed.
    void classifyPixels(const Tensor& pixels, const QString& source = {});
    /// The rollout of `result` under `options`, asynchronously: rolloutReady or failed.
    void requestRollout(VisionResultPtr result, const RolloutOptions& options);
    /// Attention flow into `query` for `result` under `options`, asynchronously: flowReady or flowFailed.
    void requestFlow(VisionResultPtr result, qint64 query, const RolloutOptions& options);

    bool hasModel() const { return m_hasModel; }
    /// The path the current model was opened from (empty before one is open).
    const QString& modelPath() const { return m_modelPath; }

signals:
    void modelOpened(const QString& description);
    void resultReady(attn::ui::VisionResultPtr result);
    void rolloutReady(
        attn::ui::VisionResultPtr result, const attn::RolloutOptions& options, const attn::Tensor& rollout);
    void flowReady(attn::ui::VisionResultPtr result, qint64 query, const attn::RolloutOptions& options,
        const std::vector<float>& patches);
    void flowFailed(
        attn::ui::VisionResultPtr result, qint64 query, const attn::RolloutOptions& options, const QString& message);
    void failed(const QString& message);

private:
    /// Runs `job` on the engine thread; `done` runs on the GUI thread with its value, `error` with an error message.
    template <typename T>
    void runJob(std::function<T(EngineContext&)> job, std::function<void(T)> done, std::function<void(QString)> error);

    /// Runs `classifyJob(model, backend)` on the open model and the engine's backend as an engine job: resultReady or
    /// failed.
    void classifyOnEngine(std::function<VisionResultPtr(const VisionModel&, Backend*)> classifyJob);
    /// The key of this controller's model among the engine thread's sessions.
    std::string sessionKey() const;

    EngineController* m_engine;
    bool m_hasModel = false;
    QString m_modelPath;
    uint64_t m_generation = 0; ///< results of jobs started before the last openModel are dropped
};

} // namespace attn::ui
