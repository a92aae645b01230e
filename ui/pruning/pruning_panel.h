// SPDX-License-Identifier: MIT
#pragma once
// The Pruning tab: every head's importance (the drop in the log-probability of the actual next tokens when it is
// removed) as a layers x heads map, and the greedy pruning curve (loss and next-token accuracy against the share of
// heads removed, least important first), for the main input or a text file of inputs. The same engine code as
// `attnscope-cli prune`, on the one engine thread with progress and Cancel. A click on a head selects it and offers
// ablating it on the Intervene tab. For an image classifier the same over labelled images: the drop in the
// log-probability of each image's true class (its file name names it), and classification accuracy on the curve. For a
// transformer translator over a file of sentence pairs: the drop in the teacher-forced log-probability of the
// reference translations, every encoder, decoder and cross-attention head, and exact-match accuracy on the curve.
#include "model/model_summary.h"
#include "pruning/pruning_result.h"

#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QProgressBar;
class QPushButton;
class QStackedWidget;

namespace attn::ui {

class EngineController;
class HeatmapView;
class InterventionRunner;
class LinePlot;
struct RunResult;

class PruningPanel : public QWidget {
    Q_OBJECT
public:
    /// Computes on `engine`'s thread (its own session key: nothing is kept between requests).
    explicit PruningPanel(EngineController* engine, QWidget* parent = nullptr);
    /// A model was opened (null, or neither a decoder, an image classifier nor a transformer translator: nothing can
    /// be pruned).
    void setModel(std::shared_ptr<const ModelSummary> summary);
    /// The image classifier at `path` was opened (the Vision tab's model: it has no ModelSummary).
    void setImageModel(const QString& path);
    /// The Vision tab's image: the one "Prune the image" uses.
    void setImage(const QString& path);
    /// The main views' latest run: the input "Prune the input" uses.
    void setRun(std::shared_ptr<const RunResult> run);
    /// Importance and curve of the main input.
    void pruneInput();
    /// Importance and curve over the non-empty lines of the text file at `path` (a translator's: sentence pairs, the
    /// source and its reference translation separated by a tab).
    void pruneCorpus(const QString& path);
    /// Image classifiers: importance and curve over the image files `paths`, labelled by their file names.
    void pruneImages(const QStringList& paths);
    /// Makes head (layer, head) the one the Ablate button sends and frames it; emits headSelected.
    void selectHead(int64_t layer, int64_t head);

    PruningResultPtr result() const { return m_result; }
    HeatmapView* importanceView() const { return m_importance; }
    LinePlot* curvePlot() const { return m_curve; }
    InterventionRunner* runner() const { return m_runner; }
    QPushButton* ablateButton() const { return m_ablate; }
    QString status() const;

signals:
    /// A result (or the reason there is none) reached the views.
    void resultShown();
    /// The user clicked head (layer, head) in the importance map.
    void headSelected(qint64 layer, qint64 head);
    /// The user asked to remove head (layer, head) on the Intervene tab.
    void ablateRequested(qint64 layer, qint64 head);

private:
    void start(PruningInputs inputs);
    void showResult(PruningResultPtr result);
    void chooseCorpus();
    bool classifier() const;
    /// A transformer translator: its heads are the rows of Seq2SeqHeadRows, its corpus sentence pairs.
    bool translator() const;
    /// "L2.H0", or for a translator "cross L1.H2".
    QString headName(int64_t layer, int64_t head) const;
    /// The head whose cell contains `at` (the importance plot's coordinates), or false.
    bool headAt(const QPoint& at, int64_t* layer, int64_t* head) const;

    InterventionRunner* m_runner = nullptr;
    std::shared_ptr<const ModelSummary> m_summary;
    std::vector<int64_t> m_tokens;
    QString m_image; ///< image classifiers: the Vision tab's image file
    PruningResultPtr m_result;
    int64_t m_layer = -1, m_head = -1; ///< the selected head (-1: none)
    QPushButton* m_pruneInput = nullptr;
    QPushButton* m_pruneCorpus = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    HeatmapView* m_importance = nullptr;
    LinePlot* m_curve = nullptr;
    QLabel* m_curvePlaceholder = nullptr;
    QStackedWidget* m_curveShown = nullptr; ///< the placeholder until a result, then the curve
    QLabel* m_selected = nullptr;
    QPushButton* m_ablate = nullptr;
};

} // namespace attn::ui
