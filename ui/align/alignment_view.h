// SPDX-License-Identifier: MIT
#pragma once
#include "align/alignment.h"
#include "core/tensor.h"
#include "plots/colormaps.h"

#include <QWidget>

#include <optional>
#include <string>
#include <vector>

namespace attn::ui {

/// The classic alignment figure: source words along the top, target words down the left, one cell per
/// (target, source) word shaded by its attention weight, the hard alignment as dots and gold links as frames (sure:
/// solid, possible: dashed). Plain QPainter, so exportWidget() keeps text and cells as vectors.
class AlignmentView : public QWidget {
    Q_OBJECT
public:
    explicit AlignmentView(QWidget* parent = nullptr);

    /// `matrix` is [target words, source words].
    void setMatrix(Tensor matrix, std::vector<std::string> sourceWords, std::vector<std::string> targetWords);
    void setLinks(Links hard);
    void setGold(std::optional<GoldAlignment> gold);
    /// Outlines target row `row`, the newest one of step-by-step decoding; -1: none.
    void setNewestRow(int row);
    void setColormap(Colormap map);

    const Tensor& matrix() const { return m_matrix; }
    const Links& links() const { return m_links; }
    int newestRow() const { return m_newestRow; }
    /// The cell rectangle of (target row, source column) in widget coordinates (for tests and tooltips).
    QRectF cellRect(int row, int column) const;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    struct Layout {
        double left = 0, top = 0, cell = 0;
    };
    Layout layout() const;

    Tensor m_matrix;
    std::vector<std::string> m_sourceWords, m_targetWords;
    Links m_links;
    std::optional<GoldAlignment> m_gold;
    int m_newestRow = -1;
    Colormap m_colormap = Colormap::Grayscale;
};

} // namespace attn::ui
