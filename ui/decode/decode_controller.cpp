// SPDX-License-Identifier: MIT
#include "decode/decode_controller.h"

#include "controller/engine_controller.h"
#include "core/error.h"
#include "decode/decode_snapshot.h"
#include "session/decode_timeline.h"

#include <algorithm>
#include <chrono>

namespace attn::ui {

namespace {

/// How long one Run job decodes before it hands its steps over. Short enough that a fast model (stories260K, ~0.1 ms a
/// step) shows its first rows, and can be paused, long before its text ends; 80 ms ran a whole story in the first job.
constexpr std::chrono::milliseconds kRunBatch { 8 };
/// Run jobs kept queued on the engine thread: it goes on decoding through GUI-thread stalls of up to this many
/// batches (64 ms). With two, a redraw delayed by a loaded machine (p99 of 140 ms at load 11 with the Decode tab's
/// views shown) left the engine idle and halved the steps per second; Pause is checked before every step whatever
/// is queued.
constexpr int kRunJobsInFlight = 8;

/// The engine-thread state of a controller: its timeline, once a model is open.
std::shared_ptr<DecodeTimeline> timelineOf(EngineContext& context, const std::string& key)
{
    auto timeline = context.session<DecodeTimeline>(key);
    if (!timeline) throw Error("no model is open for decoding");
    timeline->setForwardOptions(context.forwardOptions()); // the backend chosen since the last job
    return timeline;
}

std::string sessionKey(const DecodeController* controller)
{
    return "decode/" + std::to_string(reinterpret_cast<quintptr>(controller));
}

/// The attention of the first `positions` of `steps`, derived from the timeline's queries and keys when the timeline
/// still holds exactly those steps (a rewind may have been posted since the GUI saw them); null otherwise, and for
/// models whose attention cannot be derived: the steps' captured rows are used then.
std::shared_ptr<const AttentionSource> derivedAttention(
    const EngineContext& context, const std::string& key, const std::vector<DecodeStepPtr>& steps, int64_t positions)
{
    const auto timeline = context.session<DecodeTimeline>(key);
    if (!timeline || timeline->length() < positions
        || !std::equal(steps.begin(), steps.begin() + positions, timeline->steps().begin()))
        return nullptr;
    return timeline->derivedAttention(positions, context.backend()); // the backend chosen under View
}

} // namespace

DecodeController::DecodeController(EngineController* engine, QObject* parent)
    : QObject(parent)
    , m_engine(engine ? engine : new EngineController(openEngineProvider, this))
    , m_stepsStarted(std::make_shared<std::atomic<quint64>>(0))
    , m_stepToken(std::make_shared<std::atomic<quint64>>(0))
{
    qRegisterMetaType<attn::ui::DecodeInfoPtr>("attn::ui::DecodeInfoPtr");
    qRegisterMetaType<attn::ui::SnapshotPtr>("attn::ui::SnapshotPtr");
    qRegisterMetaType<attn::ui::StepRowsPtr>("attn::ui::StepRowsPtr");
}

DecodeController::~DecodeController() = default;

template <class Edit> void DecodeController::edit(Edit&& edit, std::function<void(const Change&)> then)
{
    const quint64 opened = m_opened;
    m_engine->post<std::shared_ptr<const Change>>(
        this,
        [key = sessionKey(this), edit = std::forward<Edit>(edit)](EngineContext& context) {
            auto change = std::make_shared<Change>();
            edit(*timelineOf(context, key), *change);
            return std::shared_ptr<const Change>(std::move(change));
        },
        [this, opened, then = std::move(then)](std::shared_ptr<const Change> change) {
            if (opened != m_opened) return;
            apply(*change);
            if (then) then(*change);
        },
        [this, opened](const QString& message) {
            if (opened != m_opened) return;
            stopRun();
            emit failed(message);
        });
}

void DecodeController::apply(const Change& change)
{
    if (change.keep < 0) return;
    if (change.newPrompt) clearBranches(); // before the views redraw the new timeline
    m_steps.resize(static_cast<size_t>(std::min<int64_t>(change.keep, static_cast<int64_t>(m_steps.size()))));
    m_steps.insert(m_steps.end(), change.added.begin(), change.added.end());
    emit timelineChanged(change.keep);
    if (!change.ended.isEmpty()) emit ended(change.ended);
}

bool DecodeController::stopRun()
{
    m_stepToken->store(++m_generation); // steps queued for the run are skipped on the engine thread
    if (!m_running) return false;
    m_running = false;
    emit runningChanged(false);
    return true;
}

void DecodeController::open(const QString& path)
{
    close();
    const quint64 generation = m_opened;
    m_engine->post<DecodeInfoPtr>(
        this,
        [key = sessionKey(this), file = path.toStdString()](EngineContext& context) {
            context.dropSession(key); // the previous model's timeline goes before the next loads
            // The weights are the copy the main views opened (the registry loads only what nobody holds).
            std::shared_ptr<DecodeTimeline> timeline
                = openDecodeTimeline(file, &context.models(), context.forwardOptions());
            timeline->reserve(timeline->info().maxPositions);
            context.setSession(key, timeline);
            return std::make_shared<const DecodeModelInfo>(timeline->info());
        },
        [this, generation](DecodeInfoPtr info) {
            if (generation != m_opened) return;
            m_info = std::move(info);
            m_steps.clear();
            emit opened(m_info);
            emit timelineChanged(0);
        },
        [this, generation](const QString& message) {
            if (generation == m_opened) emit failed(message);
        });
}

void DecodeController::close()
{
    stopRun();
    ++m_opened;
    clearBranches();
    const bool had = m_info || !m_steps.empty();
    m_info.reset();
    m_steps.clear();
    m_engine->dropSession(sessionKey(this));
    if (had) emit timelineChanged(0);
}

void DecodeController::setSampling(const SamplerOptions& o)
{
    edit([o](DecodeTimeline& t, Change&) { t.setSampling(o); });
}

void DecodeController::prompt(const QString& text)
{
    startPrompt([text = text.toStdString()](DecodeTimeline& t) { return t.encode(text); });
}

void DecodeController::promptIds(const std::vector<int64_t>& ids)
{
    startPrompt([ids](DecodeTimeline&) { return ids; });
}

template <class Tokens> void DecodeController::startPrompt(Tokens&& tokens)
{
    stopRun();
    // The timeline clears itself once the prompt is accepted, and its branches go with it (they belong to one
    // prompt): a refused prompt (over the context, no tokens) leaves the engine's steps and the branches as the panel
    // still shows them, and Step goes on from there.
    edit([tokens = std::forward<Tokens>(tokens)](DecodeTimeline& t, Change& c) {
        c.added = t.prompt(tokens(t));
        c.keep = 0;
        c.newPrompt = true;
    });
}

void DecodeController::step()
{
    stopRun();
    runNext(m_generation, false);
}

void DecodeController::runNext(quint64 generation, bool chained)
{
    edit(
        [started = m_stepsStarted, token = m_stepToken, generation, chained](DecodeTimeline& t, Change& c) {
            // A Run decodes for up to kRunBatch per job, so the GUI thread's redraws between two answers do not hold
            // decoding up; a Pause (or the step that ended the run) stops it before the next step, and skips a job
            // queued behind. A Step is one step.
            const auto until = std::chrono::steady_clock::now() + kRunBatch;
            do {
                if (chained && token->load() != generation) break;
                started->fetch_add(1);
                if (c.keep < 0) c.keep = t.length();
                if (DecodeStepPtr s = t.step()) {
                    c.added.push_back(std::move(s));
                    continue;
                }
                c.ended = t.length() >= t.info().maxPositions ? tr("the context is full") : tr("the model ended the text");
                token->store(0);
                break;
            } while (chained && std::chrono::steady_clock::now() < until);
        },
        [this, generation](const Change& c) {
            if (generation != m_generation || !m_running || c.keep < 0) return;
            if (c.ended.isEmpty()) return runNext(generation, true);
            m_running = false;
            emit runningChanged(false);
        });
}

void DecodeController::run()
{
    if (m_running) return;
    const quint64 generation = ++m_generation;
    m_stepToken->store(generation);
    m_running = true;
    emit runningChanged(true);
    // Several jobs in flight: the engine starts the next while the GUI takes in the last, so a busy GUI thread (every
    // view redrawing) does not slow decoding down. Each answer queues one more.
    for (int i = 0; i < kRunJobsInFlight; ++i)
        runNext(generation, true);
}

void DecodeController::pause()
{
    stopRun();
}

void DecodeController::back()
{
    stopRun();
    edit([](DecodeTimeline& t, Change& c) {
        t.back();
        c.keep = t.length();
    });
}

namespace {

bool sameTokens(const std::vector<DecodeStepPtr>& a, const std::vector<DecodeStepPtr>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
        [](const DecodeStepPtr& x, const DecodeStepPtr& y) { return x->token.id == y->token.id; });
}

} // namespace

bool DecodeController::keepBranch(const std::vector<DecodeStepPtr>& timeline)
{
    if (timeline.empty()) return false;
    for (const auto& b : m_branches)
        if (sameTokens(b, timeline)) return false;
    m_branches.push_back(timeline);
    return true;
}

void DecodeController::clearBranches()
{
    if (m_branches.empty()) return;
    m_branches.clear();
    emit branchesChanged();
}

void DecodeController::switchToBranch(size_t index)
{
    if (index >= m_branches.size()) return;
    stopRun();
    const std::vector<DecodeStepPtr> branch = m_branches[index];
    m_branches.erase(m_branches.begin() + static_cast<std::ptrdiff_t>(index));
    keepBranch(m_steps);
    emit branchesChanged();
    size_t keep = 0;
    while (keep < branch.size() && keep < m_steps.size() && branch[keep]->token.id == m_steps[keep]->token.id)
        ++keep;
    keep = std::max<size_t>(keep, 1); // every branch of a prompt shares its first token
    const std::vector<DecodeStepPtr> rest(branch.begin() + static_cast<std::ptrdiff_t>(keep), branch.end());
    edit([keep = static_cast<int64_t>(keep), rest](DecodeTimeline& t, Change& c) {
        c.keep = keep;
        c.added = t.restore(keep, rest);
    });
}

void DecodeController::force(int64_t position, int64_t token)
{
    // What the force replaces stays reachable; a refused force (a prompt position) replaces nothing.
    if (position >= 0 && position < static_cast<int64_t>(m_steps.size())
        && m_steps[static_cast<size_t>(position)]->origin != TokenOrigin::Prompt && keepBranch(m_steps))
        emit branchesChanged();
    const bool wasRunning = stopRun();
    edit([position, token](DecodeTimeline& t, Change& c) {
        c.keep = position;
        c.added.push_back(t.force(position, token));
    });
    if (wasRunning) run();
}

void DecodeController::reset()
{
    stopRun();
    clearBranches();
    if (!m_info) { // nothing open: nothing to clear on the engine thread
        m_steps.clear();
        emit timelineChanged(0);
        return;
    }
    edit([](DecodeTimeline& t, Change& c) {
        t.clear();
        c.keep = 0;
    });
}

void DecodeController::requestSnapshot(int64_t positions)
{
    const quint64 id = ++m_latestSnapshot;
    if (!m_info || positions < 1 || positions > static_cast<int64_t>(m_steps.size())) return;
    // Built on the engine thread from the steps as they are now (immutable), like every other result; so are the
    // strip's rows of the last position where its step keeps none.
    using Answer = std::pair<SnapshotPtr, StepRowsPtr>;
    m_engine->post<Answer>(
        this,
        [key = sessionKey(this), steps = m_steps, info = *m_info, positions](EngineContext& context) {
            auto derived = derivedAttention(context, key, steps, positions);
            // Steps of a derivable model keep no rows: when the timeline has moved on from them (a rewind posted
            // since), there is nothing to show them from, and the request after that rewind answers instead.
            if (!derived && steps.front()->attention.empty()) return Answer();
            StepRowsPtr rows = derived ? derivedStepRows(*derived, positions - 1) : nullptr;
            return Answer(decodeSnapshot(steps, info, positions, std::move(derived)), std::move(rows));
        },
        [this, id](Answer answer) {
            if (id != m_latestSnapshot || !answer.first) return;
            const qint64 n = answer.first->numKeys();
            if (answer.second) emit stepRowsReady(n - 1, std::move(answer.second));
            emit snapshotReady(n, std::move(answer.first));
        },
        {});
}

} // namespace attn::ui
