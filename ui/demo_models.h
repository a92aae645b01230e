// SPDX-License-Identifier: MIT
#pragma once
#include <QList>
#include <QString>

namespace attn::ui {

/// A model the app bundles (resources/models/), with an input that shows what its heads do.
struct DemoModel {
    QString title;
    QString path;
    QString sampleInput;
};

/// The bundled demo models that exist on disk: looked for in $ATTNSCOPE_DEMO_MODELS, next to an installed binary
/// (../share/attnscope/models), then in the source tree the app was built from.
QList<DemoModel> bundledDemoModels();

} // namespace attn::ui
