// SPDX-License-Identifier: MIT
#include "vision/vision_controller.h"

#include "core/error.h"
#include "controller/engine_controller.h"
#include "model/model_source.h"

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

VisionController::VisionController(EngineController* engine, QObject* parent)
    : QObject(parent)
    , m_engine(engine ? engine : new EngineController(openEngineProvider, this))
{
}

VisionController::~VisionController() = default;

std::string VisionController::sessionKey() const
{
    return "vision/" + std::to_string(reinterpret_cast<quintptr>(this));
}

void VisionController::close()
{
    ++m_generation;
    m_hasModel = false;
    m_modelPath.clear();
    m_engine->dropSession(sessionKey()); // the model goes with its last holder
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
    runJob<std::string>(
        [file, key = sessionKey()](EngineContext& context) {
            context.dropSession(key); // the previous model goes before the next loads
            auto vision = std::dynamic_pointer_cast<const VisionModel>(context.models().model(probeModel(file)));
            if (!vision) throw Error(file, "is not a vision model (ViT / DeiT image classifier)");
            context.setSession(key, std::move(vision));
            return describe(*context.session<const VisionModel>(key));
        },
        [this, path](std::string description) {
            m_hasModel = true;
            m_modelPath = path;
            emit modelOpened(QString::fromStdString(description));
        },
        [this](const QString& message) { emit failed(message); });
}

void VisionController::classifyOnEngine(std::function<VisionResultPtr(const VisionModel&, Backend*)> classifyJob)
{
    if (!m_hasModel) return emit failed(tr("Open a vision model first (File > Open model)."));
    runJob<VisionResultPtr>(
        [key = sessionKey(), classifyJob = std::move(classifyJob)](EngineContext& context) {
            const auto model = context.session<const VisionModel>(key);
            if (!model) throw Error("no vision model is open");
            return classifyJob(*model, context.backend().get()); // View > Compute backend's choice
        },
        [this](VisionResultPtr result) { emit resultReady(std::move(result)); },
        [this](const QString& message) { emit failed(message); });
}

void VisionController::classify(const QImage& image, const QString& source)
{
    classifyOnEngine([image, file = source.toStdString()](const VisionModel& model, Backend* backend) {
        return classifyImage(model, image, file, backend);
    });
}

void VisionController::classifyPixels(const Tensor& pixels, const QString& source)
{
    classifyOnEngine([pixels, file = source.toStdString()](const VisionModel& model, Backend* backend) {
        return attn::ui::classifyPixels(model, pixels, file, backend);
    });
}

void VisionController::requestRollout(VisionResultPtr result, const RolloutOptions& options)
{
    runJob<Tensor>([result, options](EngineContext&) { return attentionRollout(result->layerAttention(), options); },
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
