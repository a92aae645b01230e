// SPDX-License-Identifier: MIT
#include "align/alignment_controller.h"

#include "controller/engine_controller.h"
#include "core/error.h"

#include <variant>

namespace attn::ui {

/// Step-by-step decoding of one source: created and used by engine-thread jobs only.
struct AlignmentController::Decoding {
    AlignedSide source;
    std::unique_ptr<StepwiseTranslation> translation;
};

/// Runs `job` on the engine thread and hands its value or error message to `done` on the GUI thread.
template <typename T, typename Job, typename Done> void AlignmentController::runJob(Job job, Done done)
{
    using Outcome = std::variant<T, QString>;
    m_engine->post<T>(
        this, [job](EngineContext& context) -> T { return job(context); },
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
{
    qRegisterMetaType<AlignmentRunPtr>("attn::ui::AlignmentRunPtr");
}

AlignmentController::~AlignmentController() = default;

void AlignmentController::close()
{
    ++m_openId;
    ++m_reverseId;
    ++m_alignId; // results for the model are stale
    m_translator.reset();
    m_reverse.reset();
    m_decoding.reset();
    m_running = false;
}

void AlignmentController::open(const QString& path)
{
    const quint64 id = ++m_openId;
    ++m_alignId; // results for the previous model are stale
    m_translator.reset();
    m_decoding.reset();
    m_running = false;
    const std::string file = path.toStdString();
    runJob<std::shared_ptr<const Translator>>(
        [file](EngineContext& context) -> std::shared_ptr<const Translator> {
            if (!Translator::accepts(file)) return nullptr;
            return std::make_shared<const Translator>(file, context.models()); // the main views' copy
        },
        [this, id](const auto& outcome) {
            if (id != m_openId) return;
            if (const QString* error = std::get_if<QString>(&outcome)) {
                emit available(false);
                emit failed(*error);
                return;
            }
            m_translator = std::get<0>(outcome);
            emit available(m_translator != nullptr);
            if (m_translator) emit opened(QString::fromStdString(m_translator->describe()));
        });
}

void AlignmentController::openReverse(const QString& path)
{
    const quint64 id = ++m_reverseId;
    m_reverse.reset();
    if (path.isEmpty()) return;
    const std::string file = path.toStdString();
    runJob<std::shared_ptr<const Translator>>(
        [file](EngineContext& context) -> std::shared_ptr<const Translator> {
            if (!Translator::accepts(file)) throw Error(file, "is not an encoder-decoder or RNN seq2seq model");
            return std::make_shared<const Translator>(file, context.models());
        },
        [this, id](const auto& outcome) {
            if (id != m_reverseId) return;
            if (const QString* error = std::get_if<QString>(&outcome)) {
                emit failed(*error);
                return;
            }
            m_reverse = std::get<0>(outcome);
            emit reverseOpened(QString::fromStdString(m_reverse->describe()));
        });
}

void AlignmentController::align(const QString& source, const QString& reference, int beamWidth)
{
    m_running = false;
    if (!m_translator) {
        emit failed(tr("Open an encoder-decoder or RNN seq2seq model first."));
        return;
    }
    const quint64 id = ++m_alignId;
    runJob<AlignmentRunPtr>(
        [translator = m_translator, reverse = m_reverse, src = source.toStdString(),
            ref = reference.trimmed().toStdString(), beamWidth](EngineContext&) -> AlignmentRunPtr {
            AlignmentRunPtr run = runAlignment(*translator, src, ref, beamWidth);
            if (!reverse) return run;
            auto withReverse = std::make_shared<AlignmentRun>(*run);
            addReverseLinks(*withReverse, *reverse);
            return withReverse;
        },
        [this, id](const auto& outcome) { deliver(id, outcome); });
}

void AlignmentController::addReverse(AlignmentRunPtr run)
{
    if (!m_reverse || !run || run->empty()) return;
    const quint64 id = ++m_alignId;
    runJob<AlignmentRunPtr>(
        [reverse = m_reverse, run](EngineContext&) -> AlignmentRunPtr {
            auto withReverse = std::make_shared<AlignmentRun>(*run);
            if (run->stepwise && !run->hypotheses[0].finished) return withReverse; // its words are not all there yet
            addReverseLinks(*withReverse, *reverse);
            return withReverse;
        },
        [this, id](const auto& outcome) { deliver(id, outcome); });
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
    if (!m_translator) {
        m_running = false;
        emit failed(tr("Open an encoder-decoder or RNN seq2seq model first."));
        return;
    }
    if (!m_decoding || source != m_decodingSource) {
        m_decoding = std::make_shared<Decoding>();
        m_decodingSource = source;
    }
    const quint64 id = ++m_alignId;
    runJob<AlignmentRunPtr>(
        [translator = m_translator, reverse = m_reverse, decoding = m_decoding, src = source.toStdString(),
            move](EngineContext&) -> AlignmentRunPtr {
            if (!decoding->translation) {
                decoding->source = translator->source(src);
                decoding->translation = std::make_unique<StepwiseTranslation>(translator->decoder(decoding->source.ids),
                    translator->startToken(), translator->eosToken(), translator->maxNewTokens());
            }
            StepwiseTranslation& translation = *decoding->translation;
            if (move == Move::Step && !translation.finished()) translation.step();
            if (move == Move::Back) translation.back();
            if (move == Move::Reset) translation.reset();
            auto run = std::make_shared<AlignmentRun>(stepwiseRun(*translator, decoding->source, translation));
            if (reverse && translation.finished()) addReverseLinks(*run, *reverse);
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
            emit decodingChanged(static_cast<int>(greedy.steps.size()), greedy.finished, m_running);
            if (m_running) decode(m_decodingSource, Move::Step); // re-posted, so pause/back/reset get in between
        });
}

} // namespace attn::ui
