// SPDX-License-Identifier: MIT
#pragma once
#include "caption/caption_mask.h"
#include "caption/caption_state.h"
#include "vision/patch_overlay.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;

namespace attn::ui {

class CaptionStrip;
class EngineController;
class PatchMapView;

/// Image captioning word by word: open an image (or pick one of the model's samples), then Step / Run-Pause / Back /
/// Reset (Right, Space, Left) with greedy, beam or sampled decoding. The selected word's cross-attention over the
/// image is shown large (a decoder layer, one head or the mean of the heads; opacity and smoothing as in the Vision
/// tab), and the strip below holds every word so far with its own small map; click a word to show it large.
/// A head mask removes or scales heads of the encoder, the decoder's self-attention or its cross-attention (HF
/// head_mask): the caption re-runs under it at the same length, the whole caption with and without it is shown word by
/// word, and beside the selected word's map how the mask changed it (the same word after the same words through the
/// unmodified model subtracted); Undo steps back through the mask's changes.
/// Every request goes through the one engine controller (its caption request kind): no thread or model here.
class CaptionPanel : public QWidget {
    Q_OBJECT
public:
    explicit CaptionPanel(EngineController* engine, QWidget* parent = nullptr);

    /// The image-to-text model at `folder` is loaded: list its samples/ and caption the first one.
    void modelReady(const QString& folder);
    void openImage(const QString& path);
    void step();
    void back();
    void restart();
    void toggleRun();
    /// Stops Run after the step in flight.
    void pause();
    /// Shows word `word` large (-1: the newest).
    void selectWord(int word);
    void setOptions(const CaptionOptions& options);
    CaptionOptions options() const;
    void setHead(int64_t layer, int64_t head);
    /// Sets one head's factor in the mask (0 removes it, 1 takes it out of the mask) and re-runs the caption.
    void maskHead(CaptionAttention kind, int64_t layer, int64_t head, float factor);
    /// Back to the mask before its last change (Ctrl+Z in the tab).
    void undoMask();
    /// No head masked (undoable).
    void clearMask();
    const std::vector<CaptionMaskEntry>& headMask() const { return m_mask; }
    /// The whole caption without and with the mask, changed words marked; hidden without a mask.
    const QLabel* diffText() const { return m_diff; }
    /// The selected word's cross-attention with the mask minus without it (diverging scale); hidden without a mask.
    const PatchMapView* diffMap() const { return m_diffMap; }

    CaptionPtr state() const { return m_state; }
    int selectedWord() const { return m_selected; }
    bool running() const { return m_running; }
    const PatchMapView* map() const { return m_map; }
    const CaptionStrip* strip() const { return m_strip; }
    QComboBox* samples() const { return m_samples; }
    /// Writes the strip (PNG/SVG/PDF by the extension) or, for .npy, its data [words, heads, patches].
    void exportTo(const QString& path);

signals:
    void errorShown(const QString& message);
    /// A new caption state is on screen.
    void captionShown();

private:
    QWidget* buildControls();
    QWidget* buildViewBar();
    QWidget* buildMaskBar();
    void setMask(std::vector<CaptionMaskEntry> mask);
    void rerunMasked();
    void showMask();
    void showComparison();
    void showDifferenceMap();
    void show(CaptionPtr state);
    void redraw();
    void chooseImage();
    void chooseExport(const QString& filter);
    int64_t layer() const;
    int64_t head() const;

    EngineController* m_engine;
    CaptionPtr m_state;
    int m_selected = -1;
    bool m_followNewest = true;
    bool m_running = false;
    OverlayStyle m_style;
    std::vector<CaptionMaskEntry> m_mask;
    std::vector<std::vector<CaptionMaskEntry>> m_maskHistory; ///< the masks before each change, oldest first

    QComboBox* m_samples;
    QComboBox* m_strategy;
    QSpinBox* m_beam;
    QDoubleSpinBox* m_temperature;
    QSpinBox* m_seed;
    QSpinBox* m_maxWords;
    QPushButton* m_stepButton;
    QPushButton* m_runButton;
    QPushButton* m_backButton;
    QPushButton* m_resetButton;
    QComboBox* m_layer;
    QComboBox* m_head;
    QComboBox* m_colormap;
    QSlider* m_opacity;
    QCheckBox* m_smooth;
    QComboBox* m_maskKind;
    QSpinBox* m_maskLayer;
    QSpinBox* m_maskHead;
    QDoubleSpinBox* m_maskFactor;
    QPushButton* m_maskApply;
    QPushButton* m_maskUndo;
    QPushButton* m_maskClear;
    QLabel* m_maskText;
    QLabel* m_caption;
    QLabel* m_diff;
    PatchMapView* m_map;
    PatchMapView* m_diffMap;
    CaptionStrip* m_strip;
};

} // namespace attn::ui
