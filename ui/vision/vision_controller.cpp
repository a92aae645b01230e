// SPDX-License-Identifier: MIT
#include "vision/vision_controller.h"

#include "core/error.h"
#include "controller/engine_controller.h"
#include "model/model_source.h"


#include <exception>
#include <variant>

namespace attn::ui {

namespace {
std::string describe(const VisionModel& model)
{
    const ModelConfig& c = model.config();
    return modelKindName(c.kind) + ", " + std::to_string(c.numLayers) + " layers x " + std::to_string(c.numHeads)
        + " heads, " + std::to_string(model.numLabels()) + " labels";
}
} // namespace

bool isVisionModelPath(const QString& path)
{
    try {
        return (probeModel(path.toStdString()).config.capabilities & kClassify) != 0;
    } catch (const std::exception&) {
        return false;
    }
}

VisionController::VisionController(EngineController* engine, QObject* parent)
    : QObject(parent)
    , m_engine(engine ? engine : new EngineController(openEngineProvider, this))
{
}

VisionController::~VisionController() = default;

void VisionController::close()
{
    ++m_generation;
    m_model.reset();
    m_modelPath.clear();
}

template <typename T>
void VisionController::runJob(
    std::function<T(EngineContext&)> job, std::function<void(T)> done, std::function<void(QString)> error)
{
    const uint64_t generation = m_generation;
    m_engine->post<T>(
        this, std::move(job),
        [this, generation, done](T value) {
            if (generation == m_generation) done(std::move(value));
        },
        [this, generation, error](const QString& message) {
            if (generation == m_generation) error(message);
        });
}

void VisionController::openModel(const QString& path)
{
    close();
    const std::string file = path.toStdString();
    runJob<std::shared_ptr<const VisionModel>>(
        [file](EngineContext& context) {
            auto vision = std::dynamic_pointer_cast<const VisionModel>(context.models().model(probeModel(file)));
            if (!vision) throw Error(file, "is not a vision model (ViT / DeiT image classifier)");
            return vision;
        },
        [this, path](std::shared_ptr<const VisionModel> model) {
            m_model = std::move(model);
            m_modelPath = path;
            emit modelOpened(QString::fromStdString(describe(*m_model)));
        },
        [this](const QString& message) { emit failed(message); });
}

void VisionController::classify(const QImage& image, const QString& source)
{
    if (!m_model) return emit failed(tr("Open a vision model first (File > Open model)."));
    runJob<VisionResultPtr>(
        [model = m_model, image, file = source.toStdString()](EngineContext&) { return classifyImage(*model, image, file); },
        [this](VisionResultPtr result) { emit resultReady(std::move(result)); },
        [this](const QString& message) { emit failed(message); });
}

void VisionController::classifyPixels(const Tensor& pixels, const QString& source)
{
    if (!m_model) return emit failed(tr("Open a vision model first (File > Open model)."));
    runJob<VisionResultPtr>([model = m_model, pixels,
                                file = source.toStdString()](EngineContext&) { return attn::ui::classifyPixels(*model, pixels, file); },
        [this](VisionResultPtr result) { emit resultReady(std::move(result)); },
        [this](const QString& message) { emit failed(message); });
}

void VisionController::requestRollout(VisionResultPtr result, const RolloutOptions& options)
{
    runJob<Tensor>([result, options](EngineContext&) { return attentionRollout(result->attention, options); },
        [this, result, options](Tensor rollout) { emit rolloutReady(result, options, rollout); },
        [this](const QString& message) { emit failed(message); });
}

void VisionController::requestFlow(VisionResultPtr result, qint64 query, const RolloutOptions& options)
{
    runJob<std::vector<float>>([result, query, options](EngineContext&) { return flowPatches(*result, query, options); },
        [this, result, query, options](std::vector<float> patches) { emit flowReady(result, query, options, patches); },
        [this, result, query, options](const QString& message) { emit flowFailed(result, query, options, message); });
}

} // namespace attn::ui
