// SPDX-License-Identifier: MIT
#pragma once
#include "align/alignment_run.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <variant>

namespace attn::ui {

class EngineController;

using WordMatrixPtr = std::shared_ptr<const Tensor>;

/// Opens a seq2seq model (and optionally a reverse-direction one) and runs alignments and step-by-step decoding as
/// jobs of the app's one engine (EngineController::post): never on the GUI thread, on the model copy the main views
/// share. The translators and the step-by-step decoding live on the engine thread (EngineContext::session), never
/// here. Results of superseded requests are dropped. Errors arrive as failed(message), never thrown.
class AlignmentController : public QObject {
    Q_OBJECT
public:
    /// `engine`: the app's engine; null gives this controller an engine of its own (a tab used alone, in tests).
    explicit AlignmentController(EngineController* engine = nullptr, QObject* parent = nullptr);
    ~AlignmentController() override;

    /// Forgets the models (another model is being opened): nothing more runs until open().
    void close();

    /// Loads the encoder-decoder or RNN seq2seq model at `path` (the caller's probe found it translating; it is not
    /// probed again): opened() and available(true), or failed() with the loader's message and available(false).
    void open(const QString& path);
    /// A model translating the other way (target -> source): every later run carries each hypothesis' reverse links
    /// (reverseOpened). An empty path unloads it.
    void openReverse(const QString& path);
    /// Teacher-forces `reference` when not empty and runs beam search of `beamWidth` (0: none).
    void align(const QString& source, const QString& reference, int beamWidth);
    /// Adds the reverse links to `run` (when a reverse model is loaded) and hands it back through ready().
    void addReverse(AlignmentRunPtr run);
    /// The word matrix of hypothesis `hypothesis` of `run` (wordMatrix), derived on the engine thread: each head's
    /// tile is a pass over the hypothesis' queries and the source's keys. matrixReady answers the latest request only
    /// (errors: failed); an older one still running stops before its next head.
    void requestMatrix(AlignmentRunPtr run, int hypothesis, const AlignmentAggregation& aggregation);

    /// Step-by-step greedy decoding of `source` (a new source starts over): one decoder step with the KV cache, whose
    /// cross-attention row arrives as a stepwise run through ready().
    void step(const QString& source);
    /// Steps until the translation ends or pause() is called; each step is its own job, so requests interleave.
    void run(const QString& source);
    void pause();
    /// One token back (the decoder state before it is kept, nothing is recomputed).
    void back();
    /// No target token yet.
    void reset();

    bool isOpen() const { return m_open; }
    bool hasReverse() const { return m_hasReverse; }
    bool isRunning() const { return m_running; }

signals:
    void available(bool yes);
    void opened(const QString& description);
    void reverseOpened(const QString& description);
    void ready(attn::ui::AlignmentRunPtr run);
    /// The answer to the latest requestMatrix: [target words, source words] of that run's hypothesis.
    void matrixReady(attn::ui::AlignmentRunPtr run, int hypothesis, attn::ui::WordMatrixPtr matrix);
    /// Step-by-step decoding has `steps` tokens; `finished`: EOS or the length cap.
    void decodingChanged(int steps, bool finished, bool running);
    void failed(const QString& message);

private:
    struct Models;
    enum class Move { Step, Back, Reset };
    void decode(const QString& source, Move move);
    /// Runs `job(context, models)` on the engine thread with this controller's engine-side state, and hands its value
    /// or error message to `done` on the GUI thread.
    template <typename T, typename Job, typename Done> void runJob(Job job, Done done);
    /// Opens `path` as the forward (reverse: false) or reverse model on the engine thread.
    void openTranslator(const QString& path, bool reverse, quint64 id);
    std::string sessionKey() const;
    /// Emits ready or failed for alignment request `id`, unless a newer one superseded it.
    void deliver(quint64 id, const std::variant<AlignmentRunPtr, QString>& outcome);

    EngineController* m_engine;
    bool m_open = false, m_hasReverse = false;
    bool m_decoding = false; ///< step-by-step decoding of m_decodingSource has begun
    QString m_decodingSource;
    quint64 m_openId = 0, m_reverseId = 0, m_alignId = 0;
    /// The latest matrix request, read by the engine thread's jobs to stop a superseded one.
    std::shared_ptr<std::atomic<quint64>> m_matrixId;
    bool m_running = false;
};

} // namespace attn::ui
