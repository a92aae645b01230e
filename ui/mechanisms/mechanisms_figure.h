// SPDX-License-Identifier: MIT
#pragma once
// One Mechanisms page as a figure: every panel it shows (the exact map, the variant's and the difference; the three
// scale curves; the five position tables and the RoPE decay...) side by side under the page's title, whichever of the
// page's own tabs is in front and whether the page itself is in front or not. File > Export figure draws it for the
// page in front (it carries kFigureObjectName); the folder export draws it for every page.
#include <QList>
#include <QSize>
#include <QString>
#include <QWidget>

namespace attn::ui {

class MechanismsFigure : public QWidget {
    Q_OBJECT
public:
    /// Logical size of one panel in the figure: a map of 14 tokens reads, three fit a page-wide figure.
    static constexpr QSize kPanel { 400, 340 };
    static constexpr int kColumns = 3;
    static constexpr int kTitleHeight = 28;

    /// Hidden: it is drawn into files only, never laid out on screen.
    explicit MechanismsFigure(QWidget* parent = nullptr);
    /// Draws `page` from now on, titled `title`, and takes its size (figureSize of its panels).
    void setPage(QWidget* page, const QString& title);
    /// What `page` shows: its heatmaps with a matrix and its curves with a series, in the page's order; a page with
    /// neither (GQA / MQA), its tables.
    static QList<QWidget*> panelsOf(const QWidget& page);
    /// The figure of `panels` panels: up to kColumns per row, under the title.
    static QSize figureSize(qsizetype panels);

    const QList<QWidget*>& panels() const { return m_panels; }
    const QString& title() const { return m_title; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QList<QWidget*> m_panels;
    QString m_title;
};

} // namespace attn::ui
