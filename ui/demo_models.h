// SPDX-License-Identifier: MIT
#pragma once
#include <QList>
#include <QString>

namespace attn::ui {

/// A model the app bundles (resources/models/), with an input that shows what its heads do.
struct DemoModel {
    QString title;
    QString path;
    QString sampleInput; ///< text for the input line, or for the Alignment tab's source
    QString sampleReference; ///< translation demos: the gold target, shown in the Alignment tab
    QString sampleImage; ///< vision demos: an image of the model's folder, opened in the Vision tab
    /// The head the demo was trained to show (resources/models/README.md), selected when it opens.
    int showcaseLayer = 0;
    int showcaseHead = 0;
};

/// The bundled demo models that exist on disk: looked for in $ATTNSCOPE_DEMO_MODELS, next to an installed binary
/// (../share/attnscope/models), then in the source tree the app was built from. Paths come back absolute.
QList<DemoModel> bundledDemoModels();

} // namespace attn::ui
