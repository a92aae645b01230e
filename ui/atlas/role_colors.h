// SPDX-License-Identifier: MIT
#pragma once
// The colour of each head role on the head map, and the legend that names them.
#include "analysis/atlas_roles.h"

#include <QColor>
#include <QString>

namespace attn::ui {

QColor roleColor(AtlasRole role);
/// Rich text: a swatch and the name of every role.
QString roleLegend();

} // namespace attn::ui
