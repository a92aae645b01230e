// SPDX-License-Identifier: MIT
#pragma once
// The Mechanisms tab's data, every panel at once: each heatmap as .npy (float32, the engine's numbers) and CSV (as
// File > Export data writes a heatmap view), each line plot as a long-form CSV (series,x,y).
#include <QString>
#include <QStringList>

class QTabWidget;

namespace attn::ui {

/// Writes every heatmap and line plot of every page of `pages` into the folder `dir` (created if missing), named
/// mechanisms_<page>_<panel title>.{npy,csv}; panels with nothing shown yet are skipped. Returns the files written.
/// Throws Error naming the file that cannot be written.
QStringList exportMechanismsData(const QTabWidget& pages, const QString& dir);

/// `text` as a file-name part: letters and digits kept, runs of anything else as one '-'.
QString fileStem(const QString& text);

} // namespace attn::ui
