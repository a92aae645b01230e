// SPDX-License-Identifier: MIT
#include "atlas/role_colors.h"

#include <QStringList>

#include <array>

namespace attn::ui {

QColor roleColor(AtlasRole role)
{
    // Distinct hues for the four roles (Okabe-Ito, readable with the common colour-vision deficiencies), grey for
    // mixed.
    static const std::array<QColor, kAtlasRoles> colors { QColor(213, 94, 0), QColor(0, 114, 178), QColor(0, 158, 115),
        QColor(230, 159, 0), QColor(190, 190, 190) };
    return colors[static_cast<size_t>(role)];
}

QString roleLegend()
{
    QStringList parts;
    for (int r = 0; r < kAtlasRoles; ++r) {
        const auto role = static_cast<AtlasRole>(r);
        parts << QStringLiteral("<span style=\"background-color:%1\">&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;%2")
                     .arg(roleColor(role).name(), QString::fromStdString(atlasRoleName(role)));
    }
    return parts.join(QStringLiteral("&nbsp;&nbsp; "));
}

} // namespace attn::ui
