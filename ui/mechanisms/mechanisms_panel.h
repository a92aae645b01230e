// SPDX-License-Identifier: MIT
#pragma once
// The Mechanisms tab: the open model's head (or synthetic unit-variance q, k, v) next to the same q, k, v run through
// a chosen attention mechanism. It computes nothing itself and owns no thread or model: every request is a job on the
// engine thread (EngineController::post through an InterventionRunner: request ids, cancel, stale answers dropped).
#include "controller/engine_controller.h"
#include "intervention/intervention_runner.h"
#include "mechanisms/mechanisms_request.h"
#include "model/model_config.h"
#include "vision/vision_result.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTabWidget;
class QTimer;

namespace attn::ui {

class ComparePage;
class MechanismsFigure;
class EntropyPage;
class FlashPage;
class GqaPage;
class LinearPage;
class PositionsPage;
class ScalePage;

class MechanismsPanel : public QWidget {
    Q_OBJECT
public:
    explicit MechanismsPanel(EngineController* controller, QWidget* parent = nullptr);

    /// A model opened (null: none, or one the engine's text side does not open): decoders, encoders (BERT), RNN
    /// seq2seq models and encoder-decoder transformers (encoder, decoder or cross-attention: the block picker) offer
    /// their heads; speech and image-to-text models on the file setInputFile names.
    void setModel(SummaryPtr summary);
    /// The image model at `path` classified an image: its heads on that image (the Vision tab's model, shared).
    void setImageModel(const QString& path, VisionResultPtr result);
    /// A run finished: its tokens label the heatmaps (an RNN's are its source; an encoder-decoder's `target` are its
    /// decoder inputs), and a model-head request runs again.
    void runChanged(const std::vector<TokenChip>& tokens, const std::vector<TokenChip>& target = {});
    /// Encoder-decoders: which attention the heads are read from.
    void setBlock(AttentionBlock block);
    /// Speech (Whisper) and image-to-text models: the log-mel features .npy or the image their heads read (the "Input
    /// file…" button; attnscope-cli mechanisms --features / --image).
    void setInputFile(const QString& path);
    /// Whisper and the captioner: the decoder text whose heads are read (empty: the generated transcript or caption).
    void setDecoderText(const QString& text);
    void setHead(int64_t layer, int64_t head);
    void setSynthetic(bool synthetic);
    /// An attnscope-cli mechanisms --variant, e.g. "bigbird:4:1:2:7" (the picker and its parameter field).
    void setVariant(const QString& variant);
    QString variant() const;
    /// Sends the request now (otherwise changes are coalesced for 150 ms): what the visible page shows (the variant
    /// against the exact head, whatever page, for the status line); another page computes its part when opened.
    void compute();
    /// Sends a request for every page and fills them all with its result (what an export writes).
    void computeEveryPage();

    /// Page `index`'s figure (every panel it shows: MechanismsFigure) into `path` (.png, .svg or .pdf), whether the
    /// page is in front or not. Throws Error naming the file when it cannot be written.
    void exportPageFigure(int index, const QString& path, int dpi = 96);

    MechanismsPtr result() const { return m_result; }
    QString status() const;
    QTabWidget* pages() const { return m_pages; }
    ComparePage* comparePage() const { return m_compare; }
    ScalePage* scalePage() const { return m_scale; }
    FlashPage* flashPage() const { return m_flash; }
    GqaPage* gqaPage() const { return m_gqa; }
    LinearPage* linearPage() const { return m_linear; }
    PositionsPage* positionsPage() const { return m_positions; }
    EntropyPage* entropyPage() const { return m_entropy; }

signals:
    void resultShown();
    void failed(const QString& message);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void schedule();
    /// The MechanismsPart `page` shows, and the visible page's.
    unsigned partOf(const QWidget* page) const;
    unsigned shownPart() const;
    /// `page` became the visible one: it shows the result when that holds its part, else it is greyed and asks.
    void pageShown(int index);
    /// Gives `page` the result (the pages cost the GUI thread their widgets' work: only those looked at get it).
    void fillPage(QWidget* page);
    /// The figure (File > Export figure's) shows page `index`, titled with the result's variant and head.
    void showFigureOf(int index);
    void showResult(MechanismsPtr result);
    void showFailure(const QString& message);
    /// The model offers heads from `source`: layer and head ranges, and the input picker on "Model head".
    void offerHeads(HeadSource source, int64_t layers, int64_t heads);
    void updateInputControls();
    void chooseExport();
    /// Every page's panels into `dir` (exportMechanismsData), said in the status line.
    void writeExport(const QString& dir);
    /// Encoder-decoders: the layer and head ranges of the chosen block.
    void updateBlockRanges();
    void chooseInputFile();

    InterventionRunner* m_runner = nullptr; ///< the engine-thread jobs: ids, cancel, only the latest answer shown
    bool m_headed = false; ///< the open model offers heads (else only synthetic input)
    HeadSource m_headSource = HeadSource::Session;
    QString m_modelPath; ///< RNN seq2seq and image models: where the registry's copy came from
    std::shared_ptr<const Tensor> m_pixels; ///< image models: the classified image
    ModelKind m_kind = ModelKind::Decoder; ///< the open model's
    bool m_fileInput = false; ///< the open model reads request.inputFile (Whisper, the captioner)
    QString m_inputFile;
    std::vector<TokenChip> m_tokens;
    std::vector<TokenChip> m_target; ///< encoder-decoders: the decoder inputs of the last run
    int64_t m_encoderLayers = 0, m_encoderHeads = 0, m_decoderLayers = 0, m_decoderHeads = 0; ///< encoder-decoders
    QString m_noHeads; ///< why a model's heads are not offered (said with each result), or empty
    MechanismsPtr m_result;
    QList<QWidget*> m_filled; ///< the pages that show m_result
    bool m_everyPage = false; ///< the next requests ask for every page, until a result that holds them all arrives
    QString m_exportDir; ///< where that result's data goes (Export data… before every page was computed)
    QTimer* m_timer = nullptr;
    bool m_stale = false; ///< the request changed while the tab was hidden: it runs when the tab is shown
    QComboBox* m_source = nullptr;
    QComboBox* m_block = nullptr; ///< encoder-decoders: encoder self, decoder self or cross-attention
    QLabel* m_blockLabel = nullptr;
    QSpinBox* m_layer = nullptr;
    QSpinBox* m_head = nullptr;
    QSpinBox* m_tokensCount = nullptr;
    QSpinBox* m_dk = nullptr;
    QSpinBox* m_seed = nullptr;
    QComboBox* m_family = nullptr;
    QLineEdit* m_params = nullptr;
    QPushButton* m_inputFileButton = nullptr;
    QLineEdit* m_decoderText = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_cancel = nullptr;
    QPushButton* m_export = nullptr;
    QLabel* m_status = nullptr;
    QStackedWidget* m_shown = nullptr; ///< what to do until the first result, then the pages
    QLabel* m_placeholder = nullptr;
    QTabWidget* m_pages = nullptr;
    MechanismsFigure* m_figure = nullptr;
    ComparePage* m_compare = nullptr;
    ScalePage* m_scale = nullptr;
    FlashPage* m_flash = nullptr;
    GqaPage* m_gqa = nullptr;
    LinearPage* m_linear = nullptr;
    PositionsPage* m_positions = nullptr;
    EntropyPage* m_entropy = nullptr;
};

} // namespace attn::ui
