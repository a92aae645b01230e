// SPDX-License-Identifier: MIT
#include "align/alignment_controller.h"

#include "controller/engine_controller.h"
#include "core/error.h"

#include <variant>

namespace attn::ui {

/// The engine-thread state of a controller: its translators, and the step-by-step decoding of one source.
struct AlignmentController::Models {
    std::shared_ptr<const Translator> translator, reverse;
    AlignedSide source;
    std::unique_ptr<StepwiseTranslation> translation;
};

std::string AlignmentController::sessionKey() const
{
    return "align/" + std::to_string(reinterpret_cast<quintptr>(this));
}

template <typename T, typename Job, typename Done> void AlignmentController::runJob(Job job, Done done)
{
    using Outcome = std::variant<T, QString>;
    m_engine->post<T>(
        this,
        [job, key = sessionKey()](EngineContext& context) -> T {
            auto models = context.session<Models>(key);
            if (!models) context.setSession(key, models = std::make_shared<Models>());
            return job(context, *models);
        },
        [done](T value) { done(Outcome(std::move(value))); }, [done](const QString& error) { done(Outcome(error)); });
}

void AlignmentController::deliver(quint64 id, const std::variant<AlignmentRunPtr, QString>& outcome)
{
    if (id != m_alignId) return; // a newer alignment request superseded this one
    if (const QString* error = std::get_if<QString>(&outcome))
        emit failed(*error);
    else
        emit ready(std::get<0>(outcome));
}

AlignmentController::AlignmentController(EngineController* engine, QObject* parent)
    : QObject(parent)
    , m_engine(engine ? engine : new EngineController(openEngineProvider, this))
    , m_matrixId(std::make_shared<std::atomic<quint64>>(0))
{
    qRegisterMetaType<AlignmentRunPtr>("attn::ui::AlignmentRunPtr");
    qRegisterMetaType<WordMatrixPtr>("attn::ui::WordMatrixPtr");
}

AlignmentController::~AlignmentController() = default;

void AlignmentController::close()
{
    ++m_openId;
    ++m_reverseId;
    ++m_alignId; // results for the model are stale
    m_matrixId->fetch_add(1);
    m_open = m_hasReverse = m_decoding = m_running = false;
    m_engine->dropSession(sessionKey()); // the translators go with their last holder
}

void AlignmentController::open(const QString& path)
{
    const quint64 id = ++m_openId;
    ++m_alignId; // results for the previous model are stale
    m_matrixId->fetch_add(1);
    m_open = m_decoding = m_running = false;
    openTranslator(path, false, id);
}

void AlignmentController::openReverse(const QString& path)
{
    m_hasReverse = false;
    openTranslator(path, true, ++m_reverseId);
}

void AlignmentController::openTranslator(const QString& path, bool reverse, quint64 id)
{
    runJob<std::string>(
        [file = path.toStdString(), reverse](EngineContext& context, Models& models) -> std::string {
            std::shared_ptr<const Translator>& slot = reverse ? models.reverse : models.translator;
            slot.reset(); // the previous model goes before the next loads
            if (!reverse) models.translation.reset();
            if (file.empty()) return {}; // the reverse model unloaded
            // The main window opens only what its one probe found translating; the reverse model is the user's pick.
            if (reverse && !Translator::accepts(file))
                throw Error(file, "is not an encoder-decoder or RNN seq2seq model");
            slot = std::make_shared<const Translator>(file, context.models()); // the main views' copy
            return slot->describe();
        },
        [this, reverse, id](const auto& outcome) {
            if (id != (reverse ? m_reverseId : m_openId)) return;
            const QString* error = std::get_if<QString>(&outcome);
            const QString description = error ? QString() : QString::fromStdString(std::get<0>(outcome));
            if (reverse) {
                m_hasReverse = !description.isEmpty();
                if (error) emit failed(*error);
                if (m_hasReverse) emit reverseOpened(description);
                return;
            }
            m_open = !description.isEmpty();
            emit available(m_open);
            if (error) emit failed(*error);
            if (m_open) emit opened(description);
        });
}

void AlignmentController::align(const QString& source, const QString& reference, int beamWidth)
{
    m_running = false;
    if (!m_open) {
        emit failed(tr("Open an encoder-decoder or RNN seq2seq model first."));
        return;
    }
    const quint64 id = ++m_alignId;
    runJob<AlignmentRunPtr>(
        [src = source.toStdString(), ref = reference.trimmed().toStdString(), beamWidth](
            EngineContext& context, Models& models) -> AlignmentRunPtr {
            if (!models.translator) throw Error("no translation model is open");
            AlignmentRunPtr run = runAlignment(*models.translator, src, ref, beamWidth, context.backend());
            if (!models.reverse) return run;
            auto withReverse = std::make_shared<AlignmentRun>(*run);
            addReverseLinks(*withReverse, *models.reverse, context.backend());
            return withReverse;
        },
        [this, id](const auto& outcome) { deliver(id, outcome); });
}

void AlignmentController::addReverse(AlignmentRunPtr run)
{
    if (!m_hasReverse || !run || run->empty()) return;
    const quint64 id = ++m_alignId;
    runJob<AlignmentRunPtr>(
        [run](EngineContext& context, Models& models) -> AlignmentRunPtr {
            auto withReverse = std::make_shared<AlignmentRun>(*run);
            if (!models.reverse || (run->stepwise && !run->hypotheses[0].finished))
                return withReverse; // unloaded meanwhile, or its words are not all there yet
            addReverseLinks(*withReverse, *models.reverse, context.backend());
            return withReverse;
        },
        [this, id](const auto& outcome) { deliver(id, outcome); });
}

void AlignmentController::requestMatrix(AlignmentRunPtr run, int hypothesis, const AlignmentAggregation& aggregation)
{
    const quint64 id = m_matrixId->fetch_add(1) + 1;
    const auto stop = [latest = m_matrixId, bounds = m_engine->cancelBounds(), id] {
        return latest->load() != id || bounds->closing.load();
    };
    runJob<WordMatrixPtr>(
        [run, hypothesis, aggregation, stop](EngineContext&, Models&) -> WordMatrixPtr {
            const AlignmentHypothesis& hyp = run->hypotheses.at(static_cast<size_t>(hypothesis));
            return std::make_shared<const Tensor>(wordMatrix(hyp, run->source, aggregation, stop));
        },
        [this, id, run, hypothesis](const auto& outcome) {
            if (id != m_matrixId->load()) return; // superseded (and maybe stopped half-way)
            if (const QString* error = std::get_if<QString>(&outcome))
                emit failed(*error);
            else
                emit matrixReady(run, hypothesis, std::get<0>(outcome));
        });
}

void AlignmentController::step(const QString& source)
{
    decode(source, Move::Step);
}

void AlignmentController::run(const QString& source)
{
    m_running = true;
    decode(source, Move::Step);
}

void AlignmentController::pause()
{
    m_running = false; // the step in flight still arrives; no next one is posted
}

void AlignmentController::back()
{
    m_running = false;
    if (m_decoding) decode(m_decodingSource, Move::Back);
}

void AlignmentController::reset()
{
    m_running = false;
    if (m_decoding) decode(m_decodingSource, Move::Reset);
}

void AlignmentController::decode(const QString& source, Move move)
{
    if (!m_open) {
        m_running = false;
        emit failed(tr("Open an encoder-decoder or RNN seq2seq model first."));
        return;
    }
    const bool restart = !m_decoding || source != m_decodingSource;
    m_decoding = true;
    m_decodingSource = source;
    const quint64 id = ++m_alignId;
    runJob<AlignmentRunPtr>(
        [src = source.toStdString(), move, restart](EngineContext& context, Models& models) -> AlignmentRunPtr {
            const Translator* translator = models.translator.get();
            if (!translator) throw Error("no translation model is open");
            if (restart || !models.translation) {
                models.source = translator->source(src);
                models.translation
                    = std::make_unique<StepwiseTranslation>(translator->decoder(models.source.ids, context.backend()),
                        translator->startToken(), translator->eosToken(), translator->maxNewTokens());
            }
            StepwiseTranslation& translation = *models.translation;
            translation.useBackend(context.backend()); // the one chosen since the last step
            if (move == Move::Step && !translation.finished()) translation.step();
            if (move == Move::Back) translation.back();
            if (move == Move::Reset) translation.reset();
            auto run = std::make_shared<AlignmentRun>(
                stepwiseRun(*translator, models.source, translation, context.backend()));
            if (models.reverse && translation.finished()) addReverseLinks(*run, *models.reverse, context.backend());
            return run;
        },
        [this, id](const auto& outcome) {
            if (id != m_alignId) return;
            if (const QString* error = std::get_if<QString>(&outcome)) {
                m_running = false;
                emit failed(*error);
                return;
            }
            const AlignmentRunPtr& run = std::get<0>(outcome);
            const AlignmentHypothesis& greedy = run->hypotheses[0];
            if (greedy.finished) m_running = false;
            emit ready(run);
            emit decodingChanged(static_cast<int>(greedy.length()), greedy.finished, m_running);
            if (m_running) decode(m_decodingSource, Move::Step); // re-posted, so pause/back/reset get in between
        });
}

} // namespace attn::ui
